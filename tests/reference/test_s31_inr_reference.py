"""Session 31 (helper inr): implicit neural representations and hypernetworks written the way
INR code is written in torch, run under torch and minitorch with the same seeds and compared
record by record: SIREN layers (omega_0, uniform_ init bounds under no_grad, apply() init hooks,
in-place init of parameter slices, weight norm) fitted to an image by Adam with PSNR and a
gaussian-window SSIM; gradients, Laplacians and divergences of the field by
autograd.grad(create_graph=True) and by vmap(hessian/jacrev); Fourier-feature MLPs with a fixed
Gaussian projection buffer and NeRF positional encodings; coordinate grids from
meshgrid('ij'/'xy'), linspace, cartesian_prod, affine_grid, unfold/fold; hypernetworks emitting
a target MLP's weights used through F.linear, baddbmm/einsum and torch.func.functional_call
batched by vmap (also chunked hypernetworks from learned chunk embeddings, a hypernetwork as a
registered parametrization, tied weights, hessians over parameter dicts, parameters_to_vector);
multiplicative filter networks (Fourier and Gabor); instant-NGP-like multi-resolution hash
grids in 2-D and 3-D (int64 xor of products with large primes, % table size, bilinear and
trilinear weights, index/gather/embedding lookups, scatter_add collision counts) and the same
as a custom autograd.Function with once_differentiable and a vmap-able setup_context Function;
int64/int32/uint8/uint32 bitwise hashing, Morton codes, wrap-around, floor/trunc division and
the dtypes torch has no range or count kernels for; meta-learned inits (MAML with inner SGD
steps and create_graph, Meta-SGD learned rates, torch.func MAML over vmapped tasks, Reptile by
_foreach ops) and Functa/CAVIA shift modulations; NeRF volume rendering (cumprod
transmittance, hierarchical sampling by searchsorted and gather); dense feature grids by
grid_sample in 2-D/3-D with gradients to the grid and the sample points; SDF networks with the
geometric init, eikonal and normal losses and sphere tracing; WIRE-like Gabor/Gaussian
activations; DataLoader-batched fitting with CosineAnnealingLR and best-state deepcopy;
chunked rendering under no_grad/inference_mode, Laplacian pyramids; bfloat16 autocast and
half-precision weights; the errors of these APIs. float64 must agree to 1e-10 of each
record's scale, float32 to 1e-4; texts exactly.

Known and left (documented):
- float32 sqrt can be an ulp off torch's (the Gabor filter's init takes its root in float64)
  and float32 transcendentals and sums differ in the last bits.
- torch.func.jacfwd / autograd.functional.jacobian(strategy='forward-mode') run in reverse mode
  here: the zeros of a Jacobian can carry the other sign.
- vmap runs its function once per sample: an in-place write into a tensor made inside the
  function from a batched one works here where torch raises, and .item() inside vmap gives
  the sample's value (both documented in minitorch.func.vmap).
- torch's CPU kernels cover few ops of uint16/32/64 tensors (add, sub, remainder, shifts, floor
  division, matmul, gather, masked_fill, max, clamp raise NotImplementedError); minitorch
  computes them (not compared; refusing them op by op would touch every kernel).
- Quantized tensors (quantize_per_tensor, qint8) are not implemented here (not compared)."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "siren_fit", "siren_derivs", "fourier_features", "hypernet_linear", "hypernet_vmap",
    "mfn", "hash_grid_2d", "hash_grid_3d", "meta_init", "int_hashing", "nerf_render",
    "dense_grid_sample", "sdf_eikonal", "coord_grids", "inr_errors", "func_maml",
    "gabor_wire", "hyper_chunks", "init_variants", "image_fit_loader", "hash_function",
    "functa", "hyper_params_tools", "autocast_siren", "chunked_render",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _grid(lib, dt, h, w):
    ys = lib.linspace(-1, 1, h, dtype=dt)
    xs = lib.linspace(-1, 1, w, dtype=dt)
    gy, gx = lib.meshgrid(ys, xs, indexing="ij")
    return lib.stack([gx, gy], dim=-1).reshape(-1, 2)


def _image(lib, dt, h=8, w=8):
    c = _grid(lib, dt, h, w)
    r = (c**2).sum(-1, keepdim=True).sqrt()
    img = lib.cat([lib.cos(3 * r), lib.sin(2 * c[:, :1]) * 0.5 + 0.5, c[:, 1:] ** 2], dim=-1)
    return c, img


def _psnr(lib, a, b):
    mse = lib.nn.functional.mse_loss(a, b)
    return -10 * lib.log10(mse), 20 * math.log10(1.0) - 10 * lib.log10(mse)


def _siren_classes(lib):
    nn = lib.nn

    class SineLayer(nn.Module):
        def __init__(self, fan_in, fan_out, is_first=False, omega_0=30.0, bias=True):
            super().__init__()
            self.omega_0 = omega_0
            self.is_first = is_first
            self.linear = nn.Linear(fan_in, fan_out, bias=bias)
            with lib.no_grad():
                if is_first:
                    bound = 1 / fan_in
                else:
                    bound = math.sqrt(6 / fan_in) / omega_0
                self.linear.weight.uniform_(-bound, bound)

        def forward(self, x):
            return lib.sin(self.omega_0 * self.linear(x))

    class Siren(nn.Module):
        def __init__(self, fin, hidden, layers, fout, omega=30.0):
            super().__init__()
            net = [SineLayer(fin, hidden, is_first=True, omega_0=omega)]
            for _ in range(layers):
                net.append(SineLayer(hidden, hidden, omega_0=omega))
            last = nn.Linear(hidden, fout)
            with lib.no_grad():
                b = math.sqrt(6 / hidden) / omega
                last.weight.uniform_(-b, b)
            net.append(last)
            self.net = nn.Sequential(*net)

        def forward(self, coords):
            coords = coords.clone().detach().requires_grad_(True)
            return self.net(coords), coords

    return SineLayer, Siren


def _grad(lib, y, x):
    return lib.autograd.grad(y, [x], grad_outputs=lib.ones_like(y), create_graph=True)[0]


def _divergence(lib, y, x):
    div = 0.0
    for i in range(y.shape[-1]):
        div = (
            div
            + lib.autograd.grad(y[..., i], x, lib.ones_like(y[..., i]), create_graph=True)[0][
                ..., i : i + 1
            ]
        )
    return div


# --- the programs: each takes the library, a dtype and a recorder ---


def p_siren_fit(lib, dt, rec):
    _, Siren = _siren_classes(lib)
    lib.manual_seed(0)
    model = Siren(2, 16, 2, 3, omega=30.0).to(dt)
    rec("w0", model.net[0].linear.weight)
    rec("w1_bound", model.net[1].linear.weight.abs().max() <= math.sqrt(6 / 16) / 30)
    coords, img = _image(lib, dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(6):
        out, _ = model(coords)
        loss = ((out - img) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    with lib.no_grad():
        out, _ = model(coords)
        p1, p2 = _psnr(lib, out.clamp(-1, 1), img)
        rec("psnr", p1)
        rec("psnr2", p2)
        rec("img", out.view(8, 8, 3).permute(2, 0, 1)[:, ::3, ::3])
    rec("n_params", sum(p.numel() for p in model.parameters()))
    rec("repr", repr(model.net[0]))
    rec("keys", str(list(model.state_dict().keys())))


def p_siren_derivs(lib, dt, rec):
    _, Siren = _siren_classes(lib)
    lib.manual_seed(1)
    model = Siren(2, 12, 1, 1, omega=10.0).to(dt)
    g = lib.Generator().manual_seed(3)
    x = lib.rand(20, 2, generator=g, dtype=dt) * 2 - 1
    y, coords = model(x)
    rec("y", y)
    gr = _grad(lib, y, coords)
    rec("grad", gr)
    lap = _divergence(lib, gr, coords)
    rec("lap", lap)
    # Poisson-style loss on the gradient field, backward through the Laplacian
    loss = (gr - lib.stack([coords[:, 0], -coords[:, 1]], -1)).pow(2).sum(-1).mean()
    loss = loss + 1e-3 * lap.abs().mean()
    loss.backward()
    rec("loss", loss)
    rec("g_w0", model.net[0].linear.weight.grad)
    rec("g_last", model.net[-1].bias.grad)
    # the Laplacian by the Hessian's trace with torch.func
    from_func = lib.func.vmap(lib.func.hessian(lambda p: model.net(p).squeeze(-1)))(x.detach())
    rec("hess", from_func)
    rec("trace", lib.diagonal(from_func, dim1=-2, dim2=-1).sum(-1))
    jac = lib.func.vmap(lib.func.jacrev(model.net))(x.detach())
    rec("jac", jac.squeeze(1))


def p_fourier_features(lib, dt, rec):
    nn = lib.nn
    F = nn.functional

    class FFN(nn.Module):
        def __init__(self, fin, m, sigma, hidden, fout):
            super().__init__()
            self.register_buffer("B", lib.randn(fin, m) * sigma)
            self.mlp = nn.Sequential(
                nn.Linear(2 * m, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                nn.Linear(hidden, fout), nn.Sigmoid(),
            )  # fmt: skip

        def encode(self, x):
            proj = 2 * math.pi * x @ self.B
            return lib.cat([lib.sin(proj), lib.cos(proj)], dim=-1)

        def forward(self, x):
            return self.mlp(self.encode(x))

    lib.manual_seed(5)
    model = FFN(2, 8, 10.0, 32, 3).to(dt)
    rec("B", model.B)
    rec("bufs", str([n for n, _ in model.named_buffers()]))
    rec("params", str([n for n, _ in model.named_parameters()]))
    coords, img = _image(lib, dt)
    target = (img + 1) / 2
    opt = lib.optim.Adam(model.parameters(), lr=1e-2, betas=(0.9, 0.99))
    sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    for step in range(5):
        opt.zero_grad(set_to_none=True)
        pred = model(coords)
        loss = F.mse_loss(pred, target)
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
    rec("lr", sched.get_last_lr()[0])
    rec("B_nograd", model.B.requires_grad)
    enc = model.encode(coords)
    rec("enc_norm", enc.pow(2).sum(-1))
    # the encoding's components are unit circles: sin^2 + cos^2 = 1
    rec("unit", lib.allclose(enc[:, :8] ** 2 + enc[:, 8:] ** 2, lib.ones(64, 8, dtype=dt)))
    sd = model.state_dict()
    model2 = FFN(2, 8, 1.0, 32, 3).to(dt)
    model2.load_state_dict(sd)
    rec("same", lib.equal(model2(coords), model(coords)))
    # gaussian vs positional encodings
    freqs = 2.0 ** lib.arange(4, dtype=dt) * math.pi
    pe = (coords[..., None] * freqs).flatten(-2)
    rec("pe", lib.cat([pe.sin(), pe.cos()], -1)[:5])


def p_hypernet_linear(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    shapes = [(16, 2), (16,), (3, 16), (3,)]
    sizes = [math.prod(s) for s in shapes]

    class HyperNet(nn.Module):
        def __init__(self, zdim):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(zdim, 32), nn.LeakyReLU(0.2))
            self.heads = nn.ModuleList(nn.Linear(32, n) for n in sizes)
            for h in self.heads:
                nn.init.kaiming_uniform_(h.weight, a=math.sqrt(5))
                h.weight.data.mul_(0.1)

        def forward(self, z):
            h = self.body(z)
            return [
                head(h).view(z.shape[0], *s) for head, s in zip(self.heads, shapes, strict=True)
            ]

    lib.manual_seed(7)
    hyper = HyperNet(4).to(dt)
    z = lib.randn(3, 4, dtype=dt)
    w1, b1, w2, b2 = hyper(z)
    rec("w1", w1)
    coords = _grid(lib, dt, 5, 5)
    outs = []
    for i in range(3):
        h = F.relu(F.linear(coords, w1[i], b1[i]))
        outs.append(F.linear(h, w2[i], b2[i]))
    y_loop = lib.stack(outs)
    rec("y_loop", y_loop)
    # the same batched: bmm/baddbmm and einsum
    xb = coords.expand(3, -1, -1)
    h = lib.relu(lib.baddbmm(b1.unsqueeze(1), xb, w1.transpose(1, 2)))
    y_b = lib.einsum("bnh,boh->bno", h, w2) + b2[:, None, :]
    rec("y_bmm", y_b)
    rec("eq", lib.allclose(y_b, y_loop))
    target = lib.sin(coords.sum(-1, keepdim=True) * lib.arange(1, 4, dtype=dt))
    loss = F.smooth_l1_loss(y_b, target.expand_as(y_b), beta=0.5)
    loss.backward()
    rec("loss", loss)
    rec("g_body", hyper.body[0].weight.grad)
    rec("g_head3", hyper.heads[3].bias.grad)
    # flat weight vector split into the target net's shapes
    flat = lib.cat([p.flatten(1) for p in (w1, b1, w2, b2)], dim=1)
    parts = flat.split(sizes, dim=1)
    rec("split", str([tuple(p.shape) for p in parts]))
    rec("split_eq", lib.equal(parts[2].view(3, 3, 16), w2))
    tot = lib.tensor(sizes).cumsum(0)
    rec("offsets", tot)
    nn.utils.clip_grad_norm_(hyper.parameters(), 0.1)
    rec("g_clip", hyper.heads[0].weight.grad.norm())


def p_hypernet_vmap(lib, dt, rec):
    nn = lib.nn
    fc = lib.func.functional_call
    lib.manual_seed(11)
    target = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1)).to(dt)
    names = [n for n, _ in target.named_parameters()]
    shapes = [p.shape for _, p in target.named_parameters()]
    numels = [p.numel() for p in target.parameters()]
    hyper = nn.Sequential(nn.Linear(3, 24), nn.ELU(), nn.Linear(24, sum(numels))).to(dt)
    z = lib.randn(4, 3, dtype=dt)
    flat = hyper(z)

    def unflatten(v):
        return {n: c.view(s) for n, c, s in zip(names, v.split(numels), shapes, strict=True)}

    coords = _grid(lib, dt, 4, 4)

    def run(v, x):
        return fc(target, unflatten(v), (x,))

    y = lib.func.vmap(run, in_dims=(0, None))(flat, coords)
    rec("y", y)
    y_loop = lib.stack([fc(target, unflatten(flat[i]), coords) for i in range(4)])
    rec("eq", lib.allclose(y, y_loop))
    loss = y.pow(2).mean()
    g = lib.autograd.grad(loss, list(hyper.parameters()))
    rec("g0", g[0])
    rec("g3", g[3])
    # batched dict of params through vmap, with per-sample coords
    params = {k: v.detach() for k, v in lib.func.vmap(unflatten)(flat).items()}
    rec("pshapes", str({k: tuple(v.shape) for k, v in params.items()}))
    xs = coords.view(4, 4, 2)
    y2 = lib.func.vmap(lambda p, x: fc(target, p, x))(params, xs)
    rec("y2", y2)
    # strict=True refuses missing keys; tie_weights and buffers default
    sub = {k: v[0] for k, v in params.items() if k != "2.bias"}
    rec("partial", fc(target, sub, (coords[:3],)))
    rec.err("strict", lambda: fc(target, sub, (coords[:3],), strict=True))

    # grads of the generated weights with func.grad over the batch
    def loss_fn(v, x):
        return run(v, x).square().mean()

    gv = lib.func.vmap(lib.func.grad(loss_fn), in_dims=(0, None))(flat.detach(), coords)
    rec("gv", gv)
    stacked = lib.func.stack_module_state([target, target])
    rec("stack", str(sorted(stacked[0].keys())))


def p_mfn(lib, dt, rec):
    nn = lib.nn

    class FourierFilter(nn.Module):
        def __init__(self, fin, fout, scale):
            super().__init__()
            self.linear = nn.Linear(fin, fout)
            self.linear.weight.data *= scale
            self.linear.bias.data.uniform_(-math.pi, math.pi)

        def forward(self, x):
            return lib.sin(self.linear(x))

    class GaborFilter(nn.Module):
        def __init__(self, fin, fout, scale, alpha=6.0, beta=1.0):
            super().__init__()
            self.linear = nn.Linear(fin, fout)
            self.mu = nn.Parameter(2 * lib.rand(fout, fin) - 1)
            gamma = lib.distributions.Gamma(alpha, beta).sample((fout,))
            self.gamma = nn.Parameter(gamma)
            # float64 sqrt: torch's float32 sqrt can be an ulp off the rounded root
            self.linear.weight.data *= scale * self.gamma[:, None].double().sqrt().float()
            self.linear.bias.data.uniform_(-math.pi, math.pi)

        def forward(self, x):
            d = (
                (x**2).sum(-1)[..., None]
                + (self.mu**2).sum(-1)[None, :]
                - 2 * x @ self.mu.T
            )  # fmt: skip
            return lib.sin(self.linear(x)) * lib.exp(-0.5 * d * self.gamma[None, :])

    class MFN(nn.Module):
        def __init__(self, filt, fin, hidden, fout, n):
            super().__init__()
            self.filters = nn.ModuleList([filt(fin, hidden, 256 / math.sqrt(n + 1))
                                          for _ in range(n + 1)])  # fmt: skip
            self.linear = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(n)])
            for lin in self.linear:
                b = math.sqrt(1 / hidden)
                lin.weight.data.uniform_(-b, b)
            self.out = nn.Linear(hidden, fout)

        def forward(self, x):
            out = self.filters[0](x)
            for f, lin in zip(self.filters[1:], self.linear, strict=True):
                out = f(x) * lin(out)
            return self.out(out)

    coords, img = _image(lib, dt)
    for name, filt in (("fourier", FourierFilter), ("gabor", GaborFilter)):
        lib.manual_seed(13)
        net = MFN(filt, 2, 12, 3, 2).to(dt)
        opt = lib.optim.Adam(net.parameters(), lr=1e-3)
        for step in range(3):
            opt.zero_grad()
            loss = nn.functional.mse_loss(net(coords), img)
            loss.backward()
            opt.step()
            rec(f"{name}.loss{step}", loss)
        rec(f"{name}.out", net(coords[:6]))
        rec(f"{name}.gf", net.filters[1].linear.weight.grad)
        if name == "gabor":
            rec("gamma", net.filters[0].gamma)
            rec("g_mu", net.filters[2].mu.grad)


_PRIMES = (1, 2654435761, 805459861)


def _hash(lib, idx, table_size):
    # idx: (..., d) int64 integer lattice coordinates
    h = lib.zeros_like(idx[..., 0])
    for i in range(idx.shape[-1]):
        h = h ^ (idx[..., i] * _PRIMES[i])
    return h % table_size


def p_hash_grid_2d(lib, dt, rec):
    nn = lib.nn
    levels, feats, T = 4, 2, 2**6
    base, growth = 4, 1.5

    class HashGrid(nn.Module):
        def __init__(self):
            super().__init__()
            self.tables = nn.Parameter(lib.empty(levels, T, feats).uniform_(-1e-1, 1e-1))
            res = [math.floor(base * growth**lvl) for lvl in range(levels)]
            self.register_buffer("res", lib.tensor(res))
            offs = lib.tensor([[0, 0], [1, 0], [0, 1], [1, 1]])
            self.register_buffer("offs", offs)

        def forward(self, x):  # x in [0, 1]^2
            outs = []
            for lvl in range(levels):
                r = self.res[lvl]
                pos = x * r
                pos0 = lib.floor(pos).long()
                frac = pos - pos0.to(x.dtype)
                corners = pos0[:, None, :] + self.offs[None]  # (n, 4, 2)
                dense = (r + 1) ** 2 <= T
                if dense:
                    idx = corners[..., 0] + corners[..., 1] * (r + 1)
                else:
                    idx = _hash(lib, corners, T)
                f = self.tables[lvl][idx]  # (n, 4, F)
                wx = lib.stack([1 - frac[:, 0], frac[:, 0]], -1)
                wy = lib.stack([1 - frac[:, 1], frac[:, 1]], -1)
                w = (wy[:, :, None] * wx[:, None, :]).reshape(-1, 4)
                outs.append((w[..., None] * f).sum(1))
            return lib.cat(outs, -1)

    lib.manual_seed(17)
    enc = HashGrid().to(dt)
    rec("res", enc.res)
    g = lib.Generator().manual_seed(2)
    x = lib.rand(32, 2, generator=g, dtype=dt)
    y = enc(x)
    rec("y", y)
    mlp = nn.Sequential(nn.Linear(levels * feats, 16), nn.ReLU(), nn.Linear(16, 1)).to(dt)
    tgt = lib.sin(6 * x[:, :1]) * lib.cos(4 * x[:, 1:])
    opt = lib.optim.Adam([{"params": enc.parameters(), "eps": 1e-15},
                          {"params": mlp.parameters(), "weight_decay": 1e-6}],
                         lr=1e-2, betas=(0.9, 0.99))  # fmt: skip
    for step in range(4):
        opt.zero_grad()
        loss = nn.functional.mse_loss(mlp(enc(x)), tgt)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    grad = enc.tables.grad
    rec("touched", (grad.abs().sum(-1) > 0).sum(-1))
    rec("gtab", grad[3, :8])
    rec("tab", enc.tables[2, :6])


def p_hash_grid_3d(lib, dt, rec):
    levels, feats, T = 3, 2, 2**7
    g = lib.Generator().manual_seed(4)
    table = (lib.rand(levels * T, feats, generator=g, dtype=dt) * 2 - 1) * 1e-2
    table.requires_grad_(True)
    emb = lib.nn.Embedding(levels * T, feats).to(dt)
    with lib.no_grad():
        emb.weight.copy_(table)
    bits = lib.arange(8)
    offsets = lib.stack([(bits >> k) & 1 for k in range(3)], dim=-1)  # (8, 3)
    rec("offsets", offsets)
    x = lib.rand(10, 3, generator=g, dtype=dt)
    outs, outs_e = [], []
    for lvl in range(levels):
        res = 4 * 2**lvl
        pos = x * (res - 1)
        p0 = pos.floor().to(lib.int64)
        t = pos - p0
        corners = p0.unsqueeze(1) + offsets  # (n, 8, 3)
        idx = _hash(lib, corners, T) + lvl * T
        # trilinear weights as a product over the three axes
        w = lib.where(offsets.bool(), t.unsqueeze(1), 1 - t.unsqueeze(1)).prod(-1)
        rec(f"wsum{lvl}", w.sum(-1))
        f = lib.index_select(table, 0, idx.flatten()).view(*idx.shape, feats)
        outs.append(lib.einsum("nc,ncf->nf", w, f))
        fe = emb(idx)
        outs_e.append((w.unsqueeze(-1) * fe).sum(1))
        rec(f"idx{lvl}", idx[:2])
    y = lib.cat(outs, -1)
    ye = lib.cat(outs_e, -1)
    rec("y", y)
    rec("same", lib.allclose(y, ye))
    (y * lib.arange(1, 7, dtype=dt)).sum().backward()
    gt = table.grad
    rec("gnz", lib.nonzero(gt.abs().sum(-1)).squeeze(-1)[:12])
    rec("gsum", gt.sum(0))
    (ye * lib.arange(1, 7, dtype=dt)).sum().backward()
    rec("gemb_eq", lib.allclose(emb.weight.grad, gt))
    # gather form and scatter_add of counts for collisions
    idx = _hash(lib, (x * 16).long(), T)
    counts = lib.zeros(T, dtype=lib.int64).scatter_add_(0, idx, lib.ones_like(idx))
    rec("counts", counts.max())
    rec("bincount", lib.bincount(idx, minlength=T).sum())
    rec("unique", lib.unique(idx).numel())
    gat = lib.gather(table.detach(), 0, idx[:, None].expand(-1, feats))
    rec("gat", gat)


def p_meta_init(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(21)
    net = nn.Sequential(nn.Linear(2, 16), nn.SiLU(), nn.Linear(16, 16), nn.SiLU(),
                        nn.Linear(16, 1)).to(dt)  # fmt: skip
    meta_opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    coords = _grid(lib, dt, 6, 6)
    inner_lr, steps = 1e-2, 3
    g = lib.Generator().manual_seed(8)
    for it in range(3):
        meta_opt.zero_grad()
        total = 0.0
        for _task in range(2):
            freq = lib.rand(2, generator=g, dtype=dt) * 3 + 1
            phase = lib.rand(1, generator=g, dtype=dt)
            tgt = lib.sin(coords @ freq + phase).unsqueeze(-1)
            params = dict(net.named_parameters())
            for _ in range(steps):
                out = lib.func.functional_call(net, params, (coords,))
                loss = F.mse_loss(out, tgt)
                grads = lib.autograd.grad(loss, list(params.values()), create_graph=True)
                params = {
                    k: v - inner_lr * gr for (k, v), gr in zip(params.items(), grads, strict=True)
                }
            out = lib.func.functional_call(net, params, (coords,))
            outer = F.mse_loss(out, tgt)
            outer.backward()
            total = total + outer.item()
        meta_opt.step()
        rec(f"outer{it}", total)
        rec(f"g{it}", net[0].weight.grad)
    # manual inner loop with F.linear and learned per-parameter lrs (meta-SGD)
    lrs = [lib.full_like(p, 1e-2).requires_grad_() for p in net.parameters()]
    ws = list(net.parameters())

    def fwd(ws, x):
        h = F.silu(F.linear(x, ws[0], ws[1]))
        h = F.silu(F.linear(h, ws[2], ws[3]))
        return F.linear(h, ws[4], ws[5])

    tgt = lib.cos(2 * coords[:, :1])
    fast = ws
    for _ in range(2):
        loss = F.mse_loss(fwd(fast, coords), tgt)
        gr = lib.autograd.grad(loss, fast, create_graph=True)
        fast = [w - a * g_ for w, a, g_ in zip(fast, lrs, gr, strict=True)]
    outer = F.mse_loss(fwd(fast, coords), tgt)
    glr = lib.autograd.grad(outer, lrs)
    rec("outer_msgd", outer)
    rec("glr0", glr[0])
    rec("glr5", glr[5])


def p_int_hashing(lib, dt, rec):
    g = lib.Generator().manual_seed(9)
    c = lib.randint(-50, 1000, (12, 3), generator=g)
    rec("c", c)
    p = lib.tensor(_PRIMES)
    prod = c * p
    rec("prod", prod)
    h = prod[:, 0] ^ prod[:, 1] ^ prod[:, 2]
    rec("xor", h)
    rec("xor_fn", lib.bitwise_xor(lib.bitwise_xor(prod[:, 0], prod[:, 1]), prod[:, 2]))
    rec("mod", h % 2**14)
    rec("remainder", lib.remainder(h, 1 << 14))
    rec("fmod", lib.fmod(h, 2**14))
    rec("and", h & (2**14 - 1))
    rec("shift", (h >> 7) ^ (h << 3))
    rec("neg_and", lib.bitwise_and(h, -(2**10)))
    rec("not", ~c[:2])
    rec("or", c[:, 0] | 1)
    # int64 overflow wraps
    big = lib.tensor([2**62, -(2**62), 3 * 10**18], dtype=lib.int64)
    rec("wrap", big * 2654435761)
    rec("wrap_add", big + big)
    x = lib.tensor([1, 2, 3], dtype=lib.int32)
    rec("i32", (x * 2654435761).dtype)
    rec("i32_xor", x ^ 7)
    rec("u8", lib.tensor([200, 100], dtype=lib.uint8) ^ 255)
    rec("bool_xor", lib.tensor([True, False]) ^ lib.tensor([True, True]))
    rec.err("float_xor", lambda: lib.tensor([1.0], dtype=dt) ^ lib.tensor([1.0], dtype=dt))
    rec.err("xor_float_int", lambda: lib.bitwise_xor(lib.tensor([1.5], dtype=dt), 3))
    rec.err("mod_zero", lambda: lib.tensor([3, 4]) % 0)
    rec("fmod_float", lib.fmod(lib.tensor([-3.5, 3.5], dtype=dt), 2))
    rec("rem_float", lib.remainder(lib.tensor([-3.5, 3.5], dtype=dt), 2))
    rec("floor_div", lib.div(c[:, 0], 7, rounding_mode="floor"))
    rec("trunc_div", lib.div(c[:, 0], 7, rounding_mode="trunc"))
    rec("floordiv_op", c[:, 0] // 7)
    # the morton code of a grid cell: interleave bits
    v = lib.arange(8)

    def spread(v):
        v = (v | (v << 8)) & 0x00FF00FF
        v = (v | (v << 4)) & 0x0F0F0F0F
        v = (v | (v << 2)) & 0x33333333
        return (v | (v << 1)) & 0x55555555

    rec("morton", spread(v) | (spread(v.flip(0)) << 1))
    # 32-bit unsigned hashes: xor, and and multiplication are there, ranges and counts are not
    u = (c[:, 0].abs() * 2654435761 % 2**32).to(lib.uint32)
    rec("u32_xor", (u ^ (u & 0xFFFF)).long())
    rec("u32_mul", (u * 3).long())
    for udt in ("uint16", "uint32", "uint64"):
        d = getattr(lib, udt)
        rec.err(f"arange_{udt}", lambda d=d: lib.arange(8, dtype=d))
        rec.err(f"range_{udt}", lambda d=d: lib.range(0, 8, dtype=d))
        rec.err(f"linspace_{udt}", lambda d=d: lib.linspace(0, 8, 3, dtype=d))
        rec("linspace1_" + udt, lib.linspace(0, 8, 1, dtype=d).long())
        rec.err(f"logspace_{udt}", lambda d=d: lib.logspace(0, 2, 3, dtype=d))
        rec.err(f"randperm_{udt}", lambda d=d: lib.randperm(4, dtype=d))
        rec.err(f"bincount_{udt}", lambda d=d: lib.bincount((u & 15).to(d)))
    rec("bincount_u8", lib.bincount((u & 15).to(lib.uint8), minlength=16))
    rec("repr", repr(h[:3]))


def p_nerf_render(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(23)
    L = 4
    freqs = 2.0 ** lib.arange(L, dtype=dt)

    def posenc(x):
        xb = (x[..., None, :] * freqs[:, None]).flatten(-2)
        return lib.cat([x, lib.sin(xb), lib.cos(xb)], -1)

    mlp = nn.Sequential(nn.Linear(3 + 6 * L, 32), nn.ReLU(), nn.Linear(32, 4)).to(dt)
    g = lib.Generator().manual_seed(6)
    n_rays, n_s = 5, 12
    rays_o = lib.zeros(n_rays, 3, dtype=dt)
    rays_d = F.normalize(lib.randn(n_rays, 3, generator=g, dtype=dt), dim=-1)
    near, far = 0.5, 2.5
    t = lib.linspace(near, far, n_s, dtype=dt).expand(n_rays, n_s)
    mids = 0.5 * (t[..., 1:] + t[..., :-1])
    upper = lib.cat([mids, t[..., -1:]], -1)
    lower = lib.cat([t[..., :1], mids], -1)
    t = lower + (upper - lower) * lib.rand(t.shape, generator=g, dtype=dt)
    pts = rays_o[..., None, :] + rays_d[..., None, :] * t[..., :, None]
    raw = mlp(posenc(pts))
    rgb = lib.sigmoid(raw[..., :3])
    sigma = F.relu(raw[..., 3])
    dists = lib.cat([t[..., 1:] - t[..., :-1], lib.full_like(t[..., :1], 1e10)], -1)
    dists = dists * lib.linalg.norm(rays_d[..., None, :], dim=-1)
    alpha = 1 - lib.exp(-sigma * dists)
    trans = lib.cumprod(lib.cat([lib.ones_like(alpha[..., :1]), 1 - alpha + 1e-10], -1), -1)
    weights = alpha * trans[..., :-1]
    color = (weights[..., None] * rgb).sum(-2)
    depth = (weights * t).sum(-1)
    acc = weights.sum(-1)
    rec("color", color)
    rec("depth", depth)
    rec("acc", acc)
    loss = F.mse_loss(color, lib.full_like(color, 0.5))
    loss.backward()
    rec("g0", mlp[0].weight.grad[:, :5])
    # hierarchical sampling: inverse transform of the weights' pdf
    w = weights.detach()[..., 1:-1] + 1e-5
    pdf = w / w.sum(-1, keepdim=True)
    cdf = lib.cat([lib.zeros_like(pdf[..., :1]), lib.cumsum(pdf, -1)], -1)
    u = lib.rand(n_rays, 8, generator=g, dtype=dt).contiguous()
    inds = lib.searchsorted(cdf, u, right=True)
    below = (inds - 1).clamp(min=0)
    above = inds.clamp(max=cdf.shape[-1] - 1)
    ig = lib.stack([below, above], -1)
    mshape = [ig.shape[0], ig.shape[1], cdf.shape[-1]]
    cdf_g = lib.gather(cdf.unsqueeze(1).expand(mshape), 2, ig)
    bins = mids.detach()
    bins_g = lib.gather(bins.unsqueeze(1).expand(mshape), 2, ig)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = lib.where(denom < 1e-5, lib.ones_like(denom), denom)
    tt = (u - cdf_g[..., 0]) / denom
    samples = bins_g[..., 0] + tt * (bins_g[..., 1] - bins_g[..., 0])
    rec("inds", inds)
    rec("samples", samples)
    z, _ = lib.sort(lib.cat([t.detach(), samples], -1), -1)
    rec("z", z[:, ::4])


def p_dense_grid_sample(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(29)
    grid2 = nn.Parameter(lib.randn(1, 4, 6, 6, dtype=dt) * 0.1)
    g = lib.Generator().manual_seed(12)
    pts = lib.rand(1, 1, 10, 2, generator=g, dtype=dt) * 2 - 1
    for ac in (True, False):
        f = F.grid_sample(grid2, pts, mode="bilinear", align_corners=ac)
        rec(f"f2_{ac}", f)
    f = F.grid_sample(grid2, pts * 1.2, padding_mode="border", align_corners=True)
    rec("border", f)
    f = F.grid_sample(grid2, pts, mode="nearest", align_corners=False)
    rec("nearest", f)
    grid3 = nn.Parameter(lib.randn(1, 2, 4, 5, 3, dtype=dt) * 0.1)
    p3 = lib.rand(1, 1, 1, 7, 3, generator=g, dtype=dt) * 2 - 1
    f3 = F.grid_sample(grid3, p3, align_corners=True)
    rec("f3", f3)
    loss = f.square().sum() + f3.square().sum()
    loss = loss + F.grid_sample(grid2, pts, align_corners=False).abs().sum()
    loss.backward()
    rec("g2", grid2.grad[0, 0])
    rec("g3", grid3.grad.sum((0, 1)))
    # total variation on the grid and upsampling to finer resolution (coarse-to-fine)
    tv = (grid2[..., 1:, :] - grid2[..., :-1, :]).pow(2).mean() + (
        grid2[..., 1:] - grid2[..., :-1]
    ).pow(2).mean()
    rec("tv", tv)
    up = F.interpolate(grid2.detach(), size=(9, 9), mode="bilinear", align_corners=True)
    rec("up", up[0, 1])
    up3 = F.interpolate(grid3.detach(), scale_factor=2, mode="trilinear", align_corners=False)
    rec("up3", up3.shape)
    rec("up3v", up3[0, 0, :2, :2])
    # gradients w.r.t. the sample locations
    q = pts.clone().requires_grad_(True)
    out = F.grid_sample(grid2, q, align_corners=True)
    (gq,) = lib.autograd.grad(out.sum(), q)
    rec("gq", gq)


def p_sdf_eikonal(lib, dt, rec):
    nn = lib.nn

    class SDFNet(nn.Module):
        def __init__(self, hidden=16, n=3, radius=0.5):
            super().__init__()
            dims = [3] + [hidden] * n + [1]
            self.layers = nn.ModuleList()
            for i in range(len(dims) - 1):
                lin = nn.Linear(dims[i], dims[i + 1])
                if i == len(dims) - 2:
                    nn.init.normal_(lin.weight, mean=math.sqrt(math.pi) / math.sqrt(dims[i]),
                                    std=1e-4)  # fmt: skip
                    nn.init.constant_(lin.bias, -radius)
                else:
                    nn.init.constant_(lin.bias, 0.0)
                    nn.init.normal_(lin.weight, 0.0, math.sqrt(2) / math.sqrt(dims[i + 1]))
                self.layers.append(lin)
            self.act = nn.Softplus(beta=100)

        def forward(self, x):
            for i, lin in enumerate(self.layers):
                x = lin(x)
                if i < len(self.layers) - 1:
                    x = self.act(x)
            return x

    lib.manual_seed(31)
    net = SDFNet().to(dt)
    g = lib.Generator().manual_seed(14)
    surf = F_normalize(lib, lib.randn(16, 3, generator=g, dtype=dt)) * 0.5
    space = lib.rand(16, 3, generator=g, dtype=dt) * 2 - 1
    opt = lib.optim.Adam(net.parameters(), lr=5e-4)
    for step in range(3):
        x = lib.cat([surf, space]).requires_grad_(True)
        sdf = net(x)
        (gr,) = lib.autograd.grad(sdf, x, lib.ones_like(sdf), create_graph=True)
        eik = ((gr.norm(dim=-1) - 1) ** 2).mean()
        surf_loss = sdf[:16].abs().mean()
        normal_loss = (1 - lib.nn.functional.cosine_similarity(gr[:16], surf, dim=-1)).mean()
        off = lib.exp(-100 * sdf[16:].abs()).mean()
        loss = surf_loss + 0.1 * eik + 0.05 * normal_loss + 0.01 * off
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"eik{step}", eik)
    rec("sdf", net(space[:5]))
    rec("g_last", net.layers[-1].weight.grad)
    # sphere tracing a few rays
    o = lib.tensor([[0.0, 0.0, -2.0]], dtype=dt).expand(4, 3)
    d = F_normalize(lib, lib.tensor([[0, 0, 1.0], [0.1, 0, 1], [0, 0.2, 1], [0.3, 0.3, 1]],
                                    dtype=dt))  # fmt: skip
    t = lib.zeros(4, 1, dtype=dt)
    with lib.no_grad():
        for _ in range(8):
            t = t + net(o + t * d)
    rec("trace_t", t)


def F_normalize(lib, x):
    return lib.nn.functional.normalize(x, p=2.0, dim=-1, eps=1e-12)


def p_coord_grids(lib, dt, rec):
    h, w = 3, 4
    ys, xs = lib.linspace(0, 1, h, dtype=dt), lib.linspace(0, 1, w, dtype=dt)
    gi = lib.meshgrid(ys, xs, indexing="ij")
    gx = lib.meshgrid(xs, ys, indexing="xy")
    rec("ij0", gi[0])
    rec("xy0", gx[0])
    rec("eq", lib.equal(gi[1], gx[0]))
    rec("cart", lib.cartesian_prod(ys, xs))
    rec("stack", lib.stack(gi, -1).view(-1, 2))
    # pixel-centre coordinates and the tensor-ised version of the grid
    half = 0.5 / h
    centres = lib.linspace(-1 + half, 1 - half, h, dtype=dt)
    rec("centres", centres)
    grid = lib.stack(lib.meshgrid(*[lib.linspace(-1, 1, s, dtype=dt) for s in (2, 3, 2)],
                                  indexing="ij"), dim=-1)  # fmt: skip
    rec("grid3", grid.reshape(-1, 3))
    rec("shape", grid.shape)
    # the affine_grid identity matches a linspace grid (align_corners=True)
    theta = lib.tensor([[[1.0, 0, 0], [0, 1, 0]]], dtype=dt)
    ag = lib.nn.functional.affine_grid(theta, [1, 1, h, w], align_corners=True)
    rec("affine", ag)
    mine = lib.stack(
        lib.meshgrid(
            lib.linspace(-1, 1, w, dtype=dt), lib.linspace(-1, 1, h, dtype=dt), indexing="xy"
        ),
        -1,
    )
    rec("affine_eq", lib.allclose(ag[0], mine))
    rec("affine_nac", lib.nn.functional.affine_grid(theta, [1, 1, h, w], align_corners=False))
    # patch coordinates by unfold, images by fold back
    img = lib.arange(2 * 6 * 6, dtype=dt).view(1, 2, 6, 6)
    patches = lib.nn.functional.unfold(img, kernel_size=3, stride=3)
    rec("patches", patches)
    back = lib.nn.functional.fold(patches, (6, 6), kernel_size=3, stride=3)
    rec("fold_eq", lib.equal(back, img))
    down = lib.nn.functional.interpolate(img, scale_factor=0.5, mode="area")
    rec("down", down)
    rec("avg", lib.nn.functional.avg_pool2d(img, 2))
    rec("flat", img.flatten(2).transpose(1, 2)[0, :5])
    rec("unflat", img.flatten(2).unflatten(-1, (3, 12)).shape)
    rec("arange_grid", lib.stack(lib.meshgrid(lib.arange(2), lib.arange(3), indexing="ij")))
    rec("linspace1", lib.linspace(-1, 1, 1, dtype=dt))
    rec("linspace0", lib.linspace(-1, 1, 0, dtype=dt).shape)
    rec("lsp_int", lib.linspace(0, 10, 5, dtype=lib.int64))
    rec("logspace", lib.logspace(0, 3, 4, base=2, dtype=dt))


def p_inr_errors(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(73)
    x = lib.randn(4, 2, dtype=dt)
    w = lib.randn(8, 3, dtype=dt)
    rec.err("linear_shape", lambda: F.linear(x, w))
    rec.err("linear_bias", lambda: F.linear(x, lib.randn(8, 2, dtype=dt), lib.randn(7, dtype=dt)))
    rec.err("meshgrid_idx", lambda: lib.meshgrid(lib.arange(2), lib.arange(3), indexing="xz"))
    rec.err("meshgrid_dtype", lambda: lib.meshgrid(lib.arange(2), lib.arange(3.0)))
    rec.err("linspace_neg", lambda: lib.linspace(0, 1, -1))
    rec.err("vmap_dims", lambda: lib.func.vmap(lambda a: a, in_dims=(0, 0))(x))
    rec.err("vmap_size", lambda: lib.func.vmap(lambda a, b: a + b)(x, lib.randn(3, dtype=dt)))
    rec.err("grad_noreq", lambda: lib.autograd.grad(x.sum(), x))
    xr = x.clone().requires_grad_()
    y = (xr * 2).sum()
    lib.autograd.grad(y, xr)
    rec.err("grad_twice", lambda: lib.autograd.grad(y, xr))
    y2 = xr.sin().sum()
    (gg,) = lib.autograd.grad(y2, xr)
    rec.err("grad_of_grad", lambda: lib.autograd.grad(gg.sum(), xr))
    rec.err(
        "unused", lambda: lib.autograd.grad((xr**2).sum(), [xr, lib.ones(1, requires_grad=True)])
    )
    rec.err("index_float", lambda: lib.randn(5, 2, dtype=dt)[lib.tensor([0.0, 1.0])])
    rec.err("index_oob", lambda: lib.randn(5, 2, dtype=dt)[lib.tensor([0, 7])])
    rec.err("gather_dtype", lambda: lib.gather(x, 0, lib.tensor([[0, 1]], dtype=lib.int32)))
    rec.err("gridsample_dims", lambda: F.grid_sample(lib.randn(1, 2, 4, 4, dtype=dt),
                                                      lib.randn(1, 3, 3, dtype=dt)))  # fmt: skip
    rec.err("embedding_oob", lambda: F.embedding(lib.tensor([5]), lib.randn(4, 2, dtype=dt)))
    rec.err("fc_extra", lambda: lib.func.functional_call(
        lib.nn.Linear(2, 2), {"weight": lib.zeros(2, 2), "bogus": lib.zeros(1)}, (x.float(),),
        strict=True))  # fmt: skip
    rec.err("uniform_leaf", lambda: lib.zeros(2, requires_grad=True).uniform_(-1, 1))
    rec.err("shift_float", lambda: lib.tensor([1.0]) << 2)
    rec.err("remainder_bool", lambda: lib.remainder(lib.tensor([True]), 2))
    # hash indices kept in an unsigned or low-precision dtype: torch's argument checks name the
    # types without a legacy tensor class by their backend type (CPUUInt32Type)
    table = lib.randn(8, 2, dtype=dt)
    for idt in ("uint32", "uint16", "int16", "uint8", "bool"):
        ids = lib.tensor([1, 3]).to(getattr(lib, idt))
        rec.err(f"emb_{idt}", lambda ids=ids: lib.nn.functional.embedding(ids, table))
        rec.err(f"bag_{idt}", lambda ids=ids: lib.nn.functional.embedding_bag(ids[None], table))
    rec.err("bag_weight", lambda: F.embedding_bag(lib.tensor([[1]]), table.to(lib.uint16)))
    # 1-D bags: the indices and offsets are promoted together first
    flat_ids, offs = lib.tensor([1, 0, 3, 3]), lib.tensor([0, 2])
    for idt, odt in (("bool", "int64"), ("int16", "int64"), ("int64", "bool"), ("int8", "int16"),
                     ("int64", "uint32"), ("int32", "int64"), ("int64", "float32")):  # fmt: skip
        ids, o = flat_ids.to(getattr(lib, idt)), offs.to(getattr(lib, odt))
        rec.err(f"bag1d_{idt}_{odt}", lambda ids=ids, o=o: F.embedding_bag(ids, table, o))
        if rec.items[-1][1] == "no error":
            rec(f"bag1d_{idt}_{odt}.out", F.embedding_bag(ids, table, o, mode="max"))
    for wdt, pdt in (("bfloat16", "float32"), ("float64", "float16"), ("float32", "float64")):
        rec.err(f"psw_{wdt}_{pdt}", lambda w=wdt, p=pdt: F.embedding_bag(
            lib.tensor([[1, 2]]), table.to(getattr(lib, w)), mode="sum",
            per_sample_weights=lib.ones(1, 2, dtype=getattr(lib, p))))  # fmt: skip
    vals = lib.zeros(1, dtype=dt)
    for idt in ("bool", "uint32", "int32"):
        out = (vals, lib.zeros(1, dtype=getattr(lib, idt)))
        rec.err(f"median_{idt}", lambda out=out: lib.median(table[:, 0], 0, out=out))
    out = (lib.zeros(1, dtype=lib.bfloat16), lib.zeros(1, dtype=lib.int64))
    rec.err("median_values", lambda: lib.median(table[:, 0], 0, out=out))
    grid = lib.zeros(4, dtype=lib.bool)
    rec.err("setitem_expand", lambda: grid.__setitem__(slice(None), lib.ones(2, 2, dtype=lib.bool)))
    rec.err("map_", lambda: table.map_(table.to(lib.bfloat16), lambda a, b: a))
    rec.err("map2_", lambda: table.map2_(table, table.bool(), lambda a, b, c: a))


def p_func_maml(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(37)
    model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1)).to(dt)
    params = {k: v.detach() for k, v in model.named_parameters()}
    g = lib.Generator().manual_seed(15)
    n_tasks = 3
    amp = lib.rand(n_tasks, 1, 1, generator=g, dtype=dt) * 2 + 0.5
    phase = lib.rand(n_tasks, 1, 1, generator=g, dtype=dt) * math.pi
    xs = lib.rand(n_tasks, 10, 1, generator=g, dtype=dt) * 10 - 5
    ys = amp * lib.sin(xs + phase)

    def loss_fn(p, x, y):
        return nn.functional.mse_loss(lib.func.functional_call(model, p, (x,)), y)

    def inner(p, x, y):
        for _ in range(2):
            grads = lib.func.grad(loss_fn)(p, x, y)
            p = {k: p[k] - 0.05 * grads[k] for k in p}
        return p

    def outer(p, x, y):
        adapted = inner(p, x[:5], y[:5])
        return loss_fn(adapted, x[5:], y[5:])

    losses = lib.func.vmap(outer, in_dims=(None, 0, 0))(params, xs, ys)
    rec("losses", losses)
    meta_g = lib.func.grad(lambda p: lib.func.vmap(outer, in_dims=(None, 0, 0))(p, xs, ys).mean())(
        params
    )
    rec("mg0", meta_g["0.weight"])
    rec("mg2", meta_g["2.bias"])
    # the same with autograd on a leaf dict
    leaves = {k: v.clone().requires_grad_() for k, v in params.items()}
    tot = sum(outer(leaves, xs[i], ys[i]) for i in range(n_tasks)) / n_tasks
    tot.backward()
    rec("ag0", leaves["0.weight"].grad)
    rec("eq", lib.allclose(leaves["2.bias"].grad, meta_g["2.bias"]))
    # Reptile-style first-order update with torch._foreach ops
    fast = [v.clone() for v in params.values()]
    for _ in range(2):
        fl = {k: t.requires_grad_() for k, t in zip(params, fast, strict=True)}
        gs = lib.autograd.grad(loss_fn(fl, xs[0], ys[0]), list(fl.values()))
        fast = [t.detach() - 0.05 * g_ for t, g_ in zip(fast, gs, strict=True)]
    slow = [v.clone() for v in params.values()]
    diffs = lib._foreach_sub(fast, slow)
    lib._foreach_add_(slow, diffs, alpha=0.5)
    rec("reptile", slow[0])
    rec("norms", lib.stack(lib._foreach_norm(diffs)))


def p_gabor_wire(lib, dt, rec):
    nn = lib.nn

    class RealGabor(nn.Module):
        def __init__(self, fin, fout, omega=10.0, s=5.0, trainable=False):
            super().__init__()
            self.omega = nn.Parameter(lib.tensor(omega), requires_grad=trainable)
            self.scale = nn.Parameter(lib.tensor(s), requires_grad=trainable)
            self.freqs = nn.Linear(fin, fout)
            self.scales = nn.Linear(fin, fout)

        def forward(self, x):
            o = self.omega * self.freqs(x)
            sc = self.scales(x) * self.scale
            return lib.cos(o) * lib.exp(-(sc**2))

    class Gauss(nn.Module):
        def __init__(self, fin, fout, a=0.3):
            super().__init__()
            self.lin = nn.Linear(fin, fout)
            self.a = a

        def forward(self, x):
            return lib.exp(-0.5 * self.lin(x) ** 2 / self.a**2)

    lib.manual_seed(41)
    net = nn.Sequential(RealGabor(2, 16, trainable=True), Gauss(16, 16), nn.Linear(16, 3)).to(dt)
    rec("trainable", str([n for n, p in net.named_parameters() if p.requires_grad]))
    coords, img = _image(lib, dt)
    opt = lib.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-2)
    sched = lib.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.1 ** min(s / 10, 1))
    for step in range(4):
        opt.zero_grad()
        loss = nn.functional.l1_loss(net(coords), img)
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
    rec("omega", net[0].omega)
    rec("scale", net[0].scale)
    rec("gomega", net[0].omega.grad)
    rec("lr", opt.param_groups[0]["lr"])
    # sinc and the Laplacian with double backward through exp * cos
    x = coords.clone().requires_grad_()
    y = net(x)[:, 0]
    (gx,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    (gxx,) = lib.autograd.grad(gx[:, 0].sum(), x)
    rec("gxx", gxx[:6])
    rec("sinc", lib.sinc(coords[:6] * 3))


def p_hyper_chunks(lib, dt, rec):
    # a chunked hypernetwork: one small net emits the target weights chunk by chunk from
    # learned chunk embeddings; the target net is run by torch.func.functional_call
    nn = lib.nn
    lib.manual_seed(43)
    target = nn.Sequential(nn.Linear(2, 10), nn.ReLU(), nn.Linear(10, 10), nn.ReLU(),
                           nn.Linear(10, 1)).to(dt)  # fmt: skip
    tparams = dict(target.named_parameters())
    total = sum(p.numel() for p in tparams.values())
    chunk = 32
    n_chunks = math.ceil(total / chunk)
    rec("n_chunks", n_chunks)
    emb = nn.Embedding(n_chunks, 8).to(dt)
    task_emb = nn.Parameter(lib.randn(2, 4, dtype=dt))
    gen = nn.Sequential(nn.Linear(12, 32), nn.GELU(), nn.Linear(32, chunk)).to(dt)
    opt = lib.optim.SGD(list(emb.parameters()) + list(gen.parameters()) + [task_emb],
                        lr=0.05, momentum=0.9, nesterov=True)  # fmt: skip
    coords = _grid(lib, dt, 5, 5)
    tgts = [lib.sin(3 * coords[:, :1]), coords[:, 1:] ** 2]

    def make(task):
        cid = lib.arange(n_chunks)
        e = lib.cat([emb(cid), task_emb[task].expand(n_chunks, -1)], -1)
        flat = gen(e).flatten()[:total]
        out, i = {}, 0
        for k, p in tparams.items():
            out[k] = flat[i : i + p.numel()].view_as(p)
            i += p.numel()
        return out

    for step in range(3):
        opt.zero_grad()
        loss = 0
        for task in range(2):
            w = make(task)
            y = lib.func.functional_call(target, w, coords)
            loss = loss + nn.functional.mse_loss(y, tgts[task])
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("g_task", task_emb.grad)
    rec("g_emb", emb.weight.grad[:2])
    w = make(1)
    rec("w_last", w["4.weight"])
    # weight regularisation on the generated weights (hypernetwork continual-learning style)
    with lib.no_grad():
        before = {k: v.clone() for k, v in make(0).items()}
    reg = sum((make(0)[k] - before[k]).pow(2).sum() for k in before)
    rec("reg0", reg)
    rec("target_untouched", all(p.grad is None for p in target.parameters()))


def p_init_variants(lib, dt, rec):
    nn = lib.nn

    def sine_init(m):
        with lib.no_grad():
            if hasattr(m, "weight") and isinstance(m, nn.Linear):
                n = m.weight.size(-1)
                m.weight.uniform_(-math.sqrt(6 / n) / 30, math.sqrt(6 / n) / 30)

    def first_layer_init(m):
        with lib.no_grad():
            if hasattr(m, "weight"):
                m.weight.uniform_(-1 / m.weight.size(-1), 1 / m.weight.size(-1))

    lib.manual_seed(47)
    net = nn.Sequential(nn.Linear(3, 8), nn.Linear(8, 8), nn.Linear(8, 2)).to(dt)
    ret = net.apply(sine_init)
    rec("ret_is_net", ret is net)
    net[0].apply(first_layer_init)
    rec("w0", net[0].weight)
    rec("w1", net[1].weight)
    # in-place initialisation of slices of a parameter under no_grad (views of a leaf)
    with lib.no_grad():
        net[1].weight[:, :4].normal_(0.0, 0.01)
        net[1].weight[::2, 4:].fill_(0.5)
        net[1].bias.zero_()
        net[2].weight.T[1:].copy_(lib.arange(14, dtype=dt).view(7, 2) / 100)
        nn.init.uniform_(net[2].weight[:, :2], -0.5, 0.5)
    rec("w1b", net[1].weight)
    rec("w2", net[2].weight)
    rec("ver_leaf", net[1].weight.is_leaf)
    rec.err("inplace_leaf", lambda: net[1].weight.uniform_(-1, 1))
    rec.err("inplace_view", lambda: net[1].weight[:, :1].uniform_(-1, 1))
    # init by a generator stream and the fan helpers
    g = lib.Generator().manual_seed(5)
    w = lib.empty(4, 3, dtype=dt)
    nn.init.kaiming_uniform_(w, a=math.sqrt(5), generator=g)
    rec("kaiming", w)
    nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("tanh"), generator=g)
    rec("xavier", w)
    nn.init.trunc_normal_(w, std=0.5, a=-0.6, b=0.6, generator=g)
    rec("trunc", w)
    rec("trunc_in", (w.abs() <= 0.6).all())
    nn.init.orthogonal_(w, generator=g)
    rec("orth", w.T @ w)
    rec("fans", str(nn.init._calculate_fan_in_and_fan_out(lib.empty(5, 4, 3, 3))))
    # weight-normalised SIREN layer
    lin = nn.Linear(3, 4).to(dt)
    lin = nn.utils.parametrizations.weight_norm(lin)
    rec("wn_names", str(sorted(n for n, _ in lin.named_parameters())))
    x = lib.randn(5, 3, dtype=dt)
    y = lib.sin(30 * lin(x))
    y.sum().backward()
    rec("wn_y", y)
    rec("wn_g", lin.parametrizations.weight.original0.grad)
    rec("wn_v", lin.parametrizations.weight.original1.grad)
    # a frozen first layer: requires_grad_(False) through the module
    net[0].requires_grad_(False)
    out = net(lib.randn(4, 3, dtype=dt)).sum()
    out.backward()
    rec("frozen", net[0].weight.grad is None)
    rec("g2", net[2].weight.grad)


def p_image_fit_loader(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    data = lib.utils.data
    coords, img = _image(lib, dt, 6, 6)
    ds = data.TensorDataset(coords, img)
    g = lib.Generator().manual_seed(3)
    loader = data.DataLoader(ds, batch_size=10, shuffle=True, generator=g, drop_last=False)
    rec("n_batches", len(loader))
    lib.manual_seed(53)
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 3)).to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=5e-3)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6, eta_min=1e-4)
    best, best_state = float("inf"), None
    import copy

    for epoch in range(3):
        tot = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.mse_loss(model(xb), yb, reduction="sum")
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            opt.step()
            tot += loss.item()
        sched.step()
        rec(f"epoch{epoch}", tot / len(ds))
        if tot < best:
            best = tot
            best_state = copy.deepcopy(model.state_dict())
    rec("lr", sched.get_last_lr())
    model.load_state_dict(best_state)
    with lib.no_grad():
        pred = model(coords).view(6, 6, 3).permute(2, 0, 1).unsqueeze(0)
    tgt = img.view(6, 6, 3).permute(2, 0, 1).unsqueeze(0)
    # SSIM with a gaussian window by grouped conv2d
    k = lib.exp(-((lib.arange(5, dtype=dt) - 2) ** 2) / (2 * 1.5**2))
    k = k / k.sum()
    win = (k[:, None] * k[None, :]).expand(3, 1, 5, 5).contiguous()

    def filt(z):
        return F.conv2d(z, win, padding=2, groups=3)

    mu_x, mu_y = filt(pred), filt(tgt)
    sxx = filt(pred * pred) - mu_x**2
    syy = filt(tgt * tgt) - mu_y**2
    sxy = filt(pred * tgt) - mu_x * mu_y
    c1, c2 = 0.01**2, 0.03**2
    ssim = ((2 * mu_x * mu_y + c1) * (2 * sxy + c2)) / ((mu_x**2 + mu_y**2 + c1) * (sxx + syy + c2))
    rec("ssim", ssim.mean())
    mse = F.mse_loss(pred, tgt)
    rec("psnr", 10 * lib.log10(4.0 / mse))
    rec("psnr_per", -10 * lib.log10(((pred - tgt) ** 2).mean((1, 2, 3))))
    # gradient-domain loss via finite differences on the image (Sobel by conv2d)
    sob = lib.tensor([[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=dt)
    kern = lib.stack([sob, sob.T]).unsqueeze(1).repeat(3, 1, 1, 1)
    gp = F.conv2d(F.pad(pred, (1, 1, 1, 1), mode="replicate"), kern, groups=3)
    rec("sobel", gp[0, :2])


def p_hash_function(lib, dt, rec):
    # a hash encoding as a custom autograd.Function (tcnn style): forward gathers and blends the
    # corner features without a graph; backward scatters with index_add_, once differentiable
    class HashEncode(lib.autograd.Function):
        @staticmethod
        def forward(ctx, table, idx, w):
            ctx.save_for_backward(idx, w)
            ctx.rows = table.shape[0]
            ctx.mark_non_differentiable(idx)
            return (w.unsqueeze(-1) * table[idx]).sum(1), idx

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad, grad_idx):
            idx, w = ctx.saved_tensors
            out = lib.zeros(ctx.rows, grad.shape[-1], dtype=grad.dtype)
            contrib = (w.unsqueeze(-1) * grad.unsqueeze(1)).reshape(-1, grad.shape[-1])
            out.index_add_(0, idx.reshape(-1), contrib)
            return out, None, None

    g = lib.Generator().manual_seed(19)
    T = 32
    table = (lib.rand(T, 2, generator=g, dtype=dt) - 0.5).requires_grad_()
    x = lib.rand(6, 2, generator=g, dtype=dt)
    pos = x * 7
    p0 = pos.floor().long()
    t = pos - p0
    offs = lib.tensor([[0, 0], [1, 0], [0, 1], [1, 1]])
    corners = p0[:, None] + offs
    idx = _hash(lib, corners, T)
    w = lib.where(offs.bool(), t[:, None], 1 - t[:, None]).prod(-1)
    y, idx_out = HashEncode.apply(table, idx, w)
    rec("y", y)
    rec("idx_grad", idx_out.requires_grad)
    rec("grad_fn", type(y.grad_fn).__name__)
    loss = (y**2).sum()
    (gt,) = lib.autograd.grad(loss, table, create_graph=True)
    rec("gt", gt)
    ref = (w.unsqueeze(-1) * table[idx]).sum(1)
    (gr,) = lib.autograd.grad((ref**2).sum(), table)
    rec("same", lib.allclose(gt, gr))
    rec.err("double", lambda: lib.autograd.grad(gt.sum(), table))

    # a vmap-able Function: forward without ctx, setup_context, generate_vmap_rule
    class Sine(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x, omega):
            return lib.sin(omega * x)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, omega = inputs
            ctx.save_for_backward(x)
            ctx.omega = omega

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.omega * lib.cos(ctx.omega * x), None

    z = lib.linspace(-1, 1, 6, dtype=dt).view(3, 2)
    rec("vmap_grad", lib.func.vmap(lib.func.grad(lambda v: Sine.apply(v, 30.0).sum()))(z))
    zz = z.clone().requires_grad_()
    Sine.apply(zz, 30.0).sum().backward()
    rec("ag", zz.grad)


def p_functa(lib, dt, rec):
    # Functa / CAVIA: a shared SIREN with per-signal shift modulations fitted by a few inner SGD
    # steps (create_graph), the shared weights trained by the outer loss
    nn = lib.nn
    F = nn.functional

    class ModSiren(nn.Module):
        def __init__(self, width=12, omega=30.0):
            super().__init__()
            self.width, self.omega = width, omega
            self.l1 = nn.Linear(2, width)
            self.l2 = nn.Linear(width, width)
            self.out = nn.Linear(width, 1)

        def forward(self, x, mod):
            h = lib.sin(self.omega * (self.l1(x) + mod[..., None, : self.width]))
            h = lib.sin(self.l2(h) + mod[..., None, self.width :])
            return self.out(h)

    lib.manual_seed(59)
    net = ModSiren().to(dt)
    with lib.no_grad():
        for lin in (net.l1,):
            lin.weight.uniform_(-0.5, 0.5)
    coords = _grid(lib, dt, 5, 5)
    g = lib.Generator().manual_seed(21)
    freqs = lib.rand(3, 1, 2, generator=g, dtype=dt) * 3
    signals = lib.sin((coords * freqs).sum(-1, keepdim=True))
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    for it in range(2):
        mod = lib.zeros(3, 24, dtype=dt, requires_grad=True)
        m = mod
        for _ in range(3):
            inner = F.mse_loss(net(coords, m), signals, reduction="none").mean((1, 2)).sum()
            (gm,) = lib.autograd.grad(inner, m, create_graph=True)
            m = m - 1e-2 * gm
        outer = F.mse_loss(net(coords, m), signals)
        opt.zero_grad()
        outer.backward()
        opt.step()
        rec(f"outer{it}", outer)
        rec(f"mod_grad{it}", mod.grad)
        rec(f"m{it}", m)
    rec("g_l2", net.l2.weight.grad)
    # modulations of a batch with vmap over func.grad (first-order)
    p = {k: v.detach() for k, v in net.named_parameters()}

    def fit(sig):
        def loss(mm):
            return F.mse_loss(lib.func.functional_call(net, p, (coords, mm)), sig)

        mm = lib.zeros(24, dtype=dt)
        for _ in range(2):
            mm = mm - 1e-2 * lib.func.grad(loss)(mm)
        return mm

    rec("vmap_fit", lib.func.vmap(fit)(signals))


def p_hyper_params_tools(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(61)
    net = nn.Linear(2, 1).to(dt)
    p = {k: v.detach() for k, v in net.named_parameters()}
    x = lib.tensor([[0.5, -1.0], [0.2, 0.3]], dtype=dt)

    def f(p):
        return lib.func.functional_call(net, p, (x,)).sin().sum()

    H = lib.func.hessian(f)(p)
    rec("hkeys", str(sorted(H.keys())) + str(sorted(H["weight"].keys())))
    rec("hww", H["weight"]["weight"])
    rec("hbw", H["bias"]["weight"])
    J = lib.func.jacrev(lambda p: lib.func.functional_call(net, p, (x,)).sin(), chunk_size=1)(p)
    rec("jw", J["weight"])

    # tied weights under functional_call
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(lib.tanh(self.a(x)))

    m = Tied().to(dt)
    rec("names", str([n for n, _ in m.named_parameters()]))
    rec("names_dup", str([n for n, _ in m.named_parameters(remove_duplicate=False)]))
    w = lib.eye(2, dtype=dt) * 2
    rec("tied", lib.func.functional_call(m, {"a.weight": w}, (x,)))
    rec("untied", lib.func.functional_call(m, {"a.weight": w}, (x,), tie_weights=False))
    rec.err("conflict", lambda: lib.func.functional_call(m, {"a.weight": w, "b.weight": w + 1}, x))
    # a hypernetwork as a registered parametrization of the target's weight
    parametrize = nn.utils.parametrize

    class FromCode(nn.Module):
        def __init__(self, shape):
            super().__init__()
            self.shape = shape
            self.code = nn.Parameter(lib.randn(3, dtype=dt))
            self.gen = nn.Linear(3, math.prod(shape)).to(dt)

        def forward(self, w):
            return w + self.gen(self.code).view(self.shape)

    tgt = nn.Linear(2, 4).to(dt)
    parametrize.register_parametrization(tgt, "weight", FromCode((4, 2)))
    rec("pnames", str(sorted(n for n, _ in tgt.named_parameters())))
    y = F.silu(tgt(x)).sum()
    y.backward()
    rec("g_code", tgt.parametrizations.weight[0].code.grad)
    rec("g_orig", tgt.parametrizations.weight.original.grad)
    rec("is_param", parametrize.is_parametrized(tgt, "weight"))
    with parametrize.cached():
        rec("cached", tgt.weight is tgt.weight)
    w_now = tgt.weight.detach().clone()
    parametrize.remove_parametrizations(tgt, "weight", leave_parametrized=True)
    rec("removed", lib.equal(tgt.weight, w_now))
    rec("after", str(sorted(n for n, _ in tgt.named_parameters())))
    # flat parameter vector round trip (hypernetwork targets)
    vec = nn.utils.parameters_to_vector(net.parameters())
    rec("vec", vec)
    nn.utils.vector_to_parameters(vec * 2, net.parameters())
    rec("w2", net.weight)
    # batched tables / grids under vmap
    tabs = lib.randn(3, 5, 2, dtype=dt)
    idx = lib.tensor([[0, 4], [2, 2], [1, 3]])
    rec("emb", lib.func.vmap(F.embedding)(idx, tabs))
    rec("emb_none", lib.func.vmap(F.embedding, in_dims=(None, 0))(idx[0], tabs))
    img = lib.randn(3, 1, 2, 4, 4, dtype=dt)
    grid = lib.rand(3, 1, 2, 2, 2, dtype=dt) * 2 - 1
    rec("gs", lib.func.vmap(lambda i, q: F.grid_sample(i, q, align_corners=True))(img, grid))


def p_autocast_siren(lib, dt, rec):
    # mixed precision on the CPU: bfloat16 autocast of a SIREN layer (compared coarsely)
    lib.manual_seed(67)
    lin = lib.nn.Linear(2, 6).to(dt)
    x = lib.linspace(-1, 1, 8, dtype=dt).view(4, 2)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        y = lin(x)
        z = lib.sin(30 * y)
        rec("y.dtype", str(y.dtype))
        rec("z.dtype", str(z.dtype))
        loss = lib.nn.functional.mse_loss(z, lib.zeros(4, 6, dtype=lib.bfloat16))
        rec("loss.dtype", str(loss.dtype))
    rec("y_close", (y.to(dt) - lin(x)).abs().max() < 0.05)
    loss.float().backward()
    rec("g.dtype", str(lin.weight.grad.dtype))
    rec("g_sign", lin.bias.grad.sign())
    h = lin.half()
    o = h(x.half())
    rec("half.dtype", str(o.dtype))
    rec("half_close", (o.float() - lin.float()(x.float())).abs().max() < 0.01)
    rec("bytes", sum(p.numel() * p.element_size() for p in h.parameters()))


def p_chunked_render(lib, dt, rec):
    # rendering a fitted field on a dense grid in chunks under no_grad / inference_mode, and a
    # video INR with a time coordinate and per-frame Laplacian pyramids by avg_pool2d
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(71)
    net = nn.Sequential(nn.Linear(3, 16), nn.Softplus(beta=10), nn.Linear(16, 1)).to(dt)
    t = lib.linspace(0, 1, 3, dtype=dt)
    ys = lib.linspace(-1, 1, 8, dtype=dt)
    xs = lib.linspace(-1, 1, 8, dtype=dt)
    grid = lib.stack(lib.meshgrid(t, ys, xs, indexing="ij"), -1).view(-1, 3)
    rec("n", grid.shape[0])
    with lib.no_grad():
        parts = [net(c) for c in grid.split(50)]
    rec("n_parts", len(parts))
    video = lib.cat(parts).view(3, 1, 8, 8)
    with lib.inference_mode():
        whole = net(grid).view(3, 1, 8, 8)
    rec("same", lib.allclose(video, whole))
    rec("video", video[:, 0, ::3, ::3])
    chunks = lib.chunk(grid, 5)
    rec("chunk_sizes", str([c.shape[0] for c in chunks]))
    # a Laplacian pyramid of the frames
    levels, cur = [], video
    for _ in range(2):
        down = F.avg_pool2d(cur, 2)
        up = F.interpolate(down, scale_factor=2, mode="bilinear", align_corners=False)
        levels.append(cur - up)
        cur = down
    rec("lap0", levels[0].abs().mean((1, 2, 3)))
    rec("lap1", levels[1][0, 0])
    rec("coarse", cur.flatten(1))
    # temporal difference loss and its gradient wrt the network
    pred = net(grid).view(3, 8, 8)
    tv_t = (pred[1:] - pred[:-1]).abs().mean()
    tv_s = lib.diff(pred, dim=-1).pow(2).mean() + lib.diff(pred, dim=-2).pow(2).mean()
    (tv_t + 0.1 * tv_s).backward()
    rec("tv", lib.stack([tv_t, tv_s]))
    rec("g", net[0].weight.grad)
