"""Session 34 (helper mtl): multi-task learning and gradient-manipulation programs written the
way such code is written in torch (LibMTL, the standalone PCGrad/CAGrad/MGDA/GradNorm repos),
run under torch and minitorch with the same seeds and compared record by record: a shared trunk
with regression, classification and binary heads trained with fixed weights, learned
log-variances (Kendall et al.), IMTL-L scales and an AutomaticWeightedLoss module saved and
loaded; GradNorm (autograd.grad of each weighted loss w.r.t. the last shared layer with
retain_graph/create_graph, norms, inverse training rates, an L1 loss on the norms, renormalised
weights); gradient surgery on flattened gradients (parameters_to_vector, vector_to_parameters,
dot products): PCGrad with a seeded randperm, with has_grad masks and a shuffled order, and
vectorised by vmap and torch.where; GradVac's EMA targets, GradDrop's sign purity, CAGrad's
simplex weights by SGD on softmax logits, MGDA-UB's min-norm point (closed form, Frank-Wolfe in
torch and in NumPy back through from_numpy), MoCo-style projection onto the simplex (sort,
cumsum, nonzero), Aligned-MTL's eigh transform, IMTL-G (solve, inv, solve_ex), a Nash-MTL-like
fixed point, lstsq and pinv weights, DWA, RLW, GLS, STCH, DB-MTL, FAMO; per-task gradients
accumulated into .grad by hand (set_to_none or not, add_ with alpha, LibMTL's legacy .data
writes), torch.autograd.backward with lists of losses and grad_tensors, backward(inputs=...),
gradients w.r.t. GradientEdges, is_grads_batched Jacobians, autograd.functional.jacobian,
func.jacrev/grad/vmap over functional_call (has_aux, per-task one-hot weights), stacked task
heads by stack_module_state; hooks on the shared features, on parameters (projection,
post-accumulate), on nodes, multi-grad hooks ("all" and "any"), full backward (pre-)hooks on the
trunk; cross-stitch units, MMoE gates, FiLM task conditioning, missing labels (NaN targets,
ignore_index, masks), round-robin task loaders, per-head optimizers and schedulers, per-task
clipping (clip_grad_norm_, _foreach_norm, get_total_norm, clip_grads_with_norm_), a
gradient-reversal Function (gradcheck, gradgradcheck), anomaly detection of a NaN gradient,
double backward of gradient-norm penalties and Hessian-vector products; and the errors users
hit: backward twice without retain_graph (and a second task through a freed trunk, saved
tensors after the free), grads of unused parameters with allow_unused False, mismatched
grad_tensors (shapes, counts, types, non-tensor outputs), vector helpers', solves' and
randperm's errors, and the warnings of a target missing its trailing dim. float64 must agree
to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- autograd.backward / autograd.grad / Tensor.backward: a gradient that is no tensor raised
  "backward: gradients must be Tensors or None, got float" (torch: "gradients can be either
  Tensors or None, but got float"), also under is_grads_batched (an AttributeError there); an
  output that is no tensor raised a TypeError (torch: "AssertionError: Expected output to be a
  torch.Tensor").
- A shape mismatch named its own position; torch names the positions by list.index over the
  gradients and the outputs (comparing tensors by ==), so an earlier multi-element tensor gives
  "Boolean value of Tensor with more than one value is ambiguous" (or a broadcasting error) and
  an earlier equal one-element gradient is named instead: minitorch now asks the same question.
- The count of gradients was checked before the gradients themselves; torch pairs outputs and
  gradients by zip first (grad_tensors=ones(2) for two losses is a shape mismatch, not "got 2
  tensors and 1 gradients"), and under is_grads_batched counts after vmap's checks.
- autograd.grad checked every input's type before the outputs; torch checks each input's
  type and then its requires_grad, after the outputs.
- A node's and a tensor's hook handle printed as minitorch.autograd.function._Handle (torch:
  torch.utils.hooks.RemovableHandle).

Known and left (documented):
- Linear's AddmmBackward0/MmBackward0 nodes have no _saved_mat1/_saved_mat2/_saved_alpha/
  _saved_beta/_saved_*_sym_sizes/_saved_*_sym_strides (torch saves the sizes always, the
  strides per needed gradient): recording them would cost the hottest op a ctx write per call.
  The programs read saved tensors through MulBackward0 instead.
- Complex dtypes (torch's "For complex Tensors, both grad_output and output are required to
  have the same dtype" and "real scalar outputs" checks) are out of scope: minitorch has none.
- The records run on the CPU only; the strict test device and CuPy are not exercised here.
"""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "equal_weights", "uncertainty", "gradnorm", "pcgrad", "cagrad", "mgda_ub", "accumulate",
    "backward_list", "feature_hooks", "imtl_nash", "dwa_rlw", "graddrop", "cross_stitch",
    "mmoe", "missing_labels", "head_optimizers", "grad_cosine", "batched_grads", "jacobians",
    "backward_inputs", "grad_vectors", "famo", "aligned_mtl", "param_hooks", "errors",
    "errors_grad", "errors_vectors", "saved_freed", "double_backward", "gradvac",
    "gradient_edges", "multi_grad_hook", "module_hooks", "grad_reversal", "clip_per_task",
    "func_tasks", "anomaly", "round_robin", "film_tasks", "imtl_l", "libmtl_style",
    "pcgrad_masks", "simplex", "mgda_numpy", "errors_engine", "pcgrad_vmap", "warnings",
    "vmap_heads", "hook_api",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _net(lib, dt, seed=0, d_in=5, d_h=6, heads=(1, 3, 1)):
    """A shared trunk (two layers) and one linear head per task."""
    nn = lib.nn

    class MTLNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(
                nn.Linear(d_in, d_h), nn.Tanh(), nn.Linear(d_h, d_h), nn.Softplus()
            )
            self.heads = nn.ModuleList([nn.Linear(d_h, k) for k in heads])

        def forward(self, x):
            z = self.trunk(x)
            return z, [h(z) for h in self.heads]

    lib.manual_seed(seed)
    return MTLNet().to(dt)


def _data(lib, dt, seed=1, n=8, d_in=5):
    g = _gen(lib, seed)
    x = lib.randn(n, d_in, generator=g, dtype=dt)
    y_reg = lib.randn(n, 1, generator=g, dtype=dt)
    y_cls = lib.randint(0, 3, (n,), generator=g)
    y_bin = (lib.rand(n, 1, generator=g, dtype=dt) > 0.5).to(dt)
    return x, (y_reg, y_cls, y_bin)


def _task_losses(lib, outs, ys):
    F = lib.nn.functional
    return [
        F.mse_loss(outs[0], ys[0]),
        F.cross_entropy(outs[1], ys[1]),
        F.binary_cross_entropy_with_logits(outs[2], ys[2]),
    ]


def _shared(model):
    return list(model.trunk.parameters())


def _flat_grads(lib, loss, params, retain=True):
    grads = lib.autograd.grad(loss, params, retain_graph=retain, materialize_grads=True)
    return lib.cat([g.reshape(-1) for g in grads])


# --- the programs: each takes the library, a dtype and a recorder ---


def p_equal_weights(lib, dt, rec):
    model = _net(lib, dt)
    x, ys = _data(lib, dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    w = lib.tensor([1.0, 0.5, 2.0], dtype=dt)
    for step in range(4):
        opt.zero_grad()
        _, outs = model(x)
        losses = lib.stack(_task_losses(lib, outs, ys))
        loss = (w * losses).sum()
        loss.backward()
        opt.step()
        rec(f"losses.{step}", losses)
    rec.params("p", model, grads=True)
    rec("grad_fn", type(losses.grad_fn).__name__)


def p_uncertainty(lib, dt, rec):
    """Kendall et al.: learned log-variances s_i, loss = sum(exp(-s_i) L_i + s_i) (x0.5 for
    regression)."""
    model = _net(lib, dt, seed=2)
    x, ys = _data(lib, dt, seed=3)
    log_vars = lib.nn.Parameter(lib.zeros(3, dtype=dt))
    opt = lib.optim.Adam([{"params": model.parameters()}, {"params": [log_vars], "lr": 0.05}],
                         lr=0.01)
    for step in range(5):
        opt.zero_grad()
        _, outs = model(x)
        losses = _task_losses(lib, outs, ys)
        precision = lib.exp(-log_vars)
        total = 0.5 * precision[0] * losses[0] + 0.5 * log_vars[0]
        for i in (1, 2):
            total = total + precision[i] * losses[i] + log_vars[i]
        total.backward()
        rec(f"lv.grad.{step}", log_vars.grad)
        opt.step()
        rec(f"total.{step}", total)
    rec("log_vars", log_vars)
    rec("sigma", lib.exp(0.5 * log_vars))
    rec("repr", repr(log_vars.detach().round(decimals=2)))
    # the softplus-parametrised variant (positive sigmas)
    raw = lib.nn.Parameter(lib.full((3,), 0.3, dtype=dt))
    _, outs = model(x)
    sig2 = lib.nn.functional.softplus(raw) ** 2
    losses = lib.stack(_task_losses(lib, outs, ys))
    total = (losses / (2 * sig2) + lib.log1p(sig2)).sum()
    total.backward()
    rec("raw.grad", raw.grad)


def p_gradnorm(lib, dt, rec):
    """GradNorm (Chen et al. 2018): task weights trained so that the gradient norms of the
    weighted losses w.r.t. the last shared layer follow the inverse training rates."""
    model = _net(lib, dt, seed=4)
    x, ys = _data(lib, dt, seed=5)
    T, alpha = 3, 1.5
    weights = lib.nn.Parameter(lib.ones(T, dtype=dt))
    opt = lib.optim.Adam(model.parameters(), lr=0.02)
    opt_w = lib.optim.Adam([weights], lr=0.025)
    last_shared = model.trunk[2].weight
    l0 = None
    for step in range(4):
        _, outs = model(x)
        task_loss = lib.stack(_task_losses(lib, outs, ys))
        if l0 is None:
            l0 = task_loss.detach()
        weighted = weights * task_loss
        loss = weighted.sum()
        opt.zero_grad()
        opt_w.zero_grad()
        loss.backward(retain_graph=True)
        weights.grad.data = weights.grad.data * 0.0
        norms = []
        for i in range(T):
            gi = lib.autograd.grad(weighted[i], last_shared, retain_graph=True,
                                   create_graph=True)[0]
            norms.append(lib.norm(gi))
        norms = lib.stack(norms)
        loss_ratio = task_loss.detach() / l0
        inverse_rate = loss_ratio / loss_ratio.mean()
        mean_norm = norms.mean().detach()
        target = (mean_norm * inverse_rate**alpha).detach()
        gn_loss = lib.nn.functional.l1_loss(norms, target, reduction="sum")
        weights.grad = lib.autograd.grad(gn_loss, weights)[0]
        opt.step()
        opt_w.step()
        with lib.no_grad():
            weights.data = weights.data / weights.data.sum() * T
        rec(f"norms.{step}", norms)
        rec(f"gn.{step}", gn_loss)
        rec(f"w.{step}", weights)
    rec.params("p", model)
    rec("norm_grad_fn", type(norms.grad_fn).__name__)


def _pcgrad(lib, grads, g):
    """PCGrad: project each task gradient off the others it conflicts with, in a random order."""
    T = len(grads)
    projected = [gi.clone() for gi in grads]
    for i in range(T):
        for j in lib.randperm(T, generator=g).tolist():
            if j == i:
                continue
            dot = lib.dot(projected[i], grads[j])
            if dot < 0:
                projected[i] -= dot * grads[j] / grads[j].norm() ** 2
    return lib.stack(projected)


def p_pcgrad(lib, dt, rec):
    """PCGrad on the flattened shared gradients in a seeded randperm order; the heads get their
    own gradients by backward(inputs=...)."""
    model = _net(lib, dt, seed=6)
    x, ys = _data(lib, dt, seed=7)
    params = list(model.parameters())
    shared, heads = _shared(model), list(model.heads.parameters())
    opt = lib.optim.SGD(params, lr=0.05)
    g = _gen(lib, 11)
    for step in range(3):
        opt.zero_grad()
        _, outs = model(x)
        losses = _task_losses(lib, outs, ys)
        flat = [_flat_grads(lib, li, shared) for li in losses]
        rec(f"conflict.{step}", lib.stack([lib.dot(flat[0], flat[1]), lib.dot(flat[1], flat[2]),
                                           lib.dot(flat[0], flat[2])]))
        merged = _pcgrad(lib, flat, g).sum(0)
        rec(f"merged.{step}", merged)
        # write the merged shared gradient, and the heads' own gradients
        offset = 0
        for p in shared:
            n = p.numel()
            p.grad = merged[offset : offset + n].view_as(p).clone()
            offset += n
        sum(losses).backward(inputs=heads)
        opt.step()
    rec.params("p", model, grads=True)
    rec("vec", lib.nn.utils.parameters_to_vector(model.parameters()))


def p_cagrad(lib, dt, rec):
    """CAGrad (Liu et al. 2021): w on the simplex (softmax of logits) minimising
    g_w . g0 + sqrt(phi) |g_w| by a fixed number of SGD steps; the update is g0 + lam g_w."""
    model = _net(lib, dt, seed=8)
    x, ys = _data(lib, dt, seed=9)
    shared = _shared(model)
    _, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    G = lib.stack([_flat_grads(lib, li, shared) for li in losses])  # (T, P)
    GG = G @ G.t()
    scale = (lib.diag(GG) + 1e-4).sqrt().mean()
    GG = GG / scale.pow(2)
    Gg = GG.mean(1, keepdims=True)
    gg = Gg.mean(0, keepdims=True)
    w = lib.zeros(3, 1, dtype=dt, requires_grad=True)
    w_opt = lib.optim.SGD([w], lr=25, momentum=0.5)
    c = (gg + 1e-4).sqrt() * 0.5
    for _ in range(20):
        w_opt.zero_grad()
        ww = lib.softmax(w, 0)
        obj = ww.t().mm(Gg) + c * (ww.t().mm(GG).mm(ww) + 1e-4).sqrt()
        obj.sum().backward()
        w_opt.step()
    ww = lib.softmax(w, 0).detach()
    gw_norm = (ww.t().mm(GG).mm(ww) + 1e-4).sqrt()
    lmbda = c.view(-1) / (gw_norm + 1e-4)
    g = ((1 / 3 + ww * lmbda).view(-1, 1) * G).sum(0) / (1 + 0.5**2)
    rec("GG", GG)
    rec("w", ww)
    rec("g", g)
    rec("obj", obj)


def p_mgda_ub(lib, dt, rec):
    """MGDA-UB: the min-norm point of the task gradients w.r.t. the shared representation, by
    the two-task closed form and by Frank-Wolfe on the Gram matrix."""
    model = _net(lib, dt, seed=10)
    x, ys = _data(lib, dt, seed=11)
    z, _ = model(x)
    rep = z.detach().requires_grad_(True)
    outs = [h(rep) for h in model.heads]
    losses = _task_losses(lib, outs, ys)
    grads = []
    for li in losses:
        (gi,) = lib.autograd.grad(li, rep, retain_graph=True)
        grads.append(gi.flatten())
    G = lib.stack(grads)
    M = G @ G.T
    # two tasks, closed form
    v1v1, v1v2, v2v2 = M[0, 0], M[0, 1], M[1, 1]
    gamma = ((v2v2 - v1v2) / (v1v1 + v2v2 - 2 * v1v2)).clamp(0.0, 1.0)
    rec("gamma", gamma)
    # Frank-Wolfe over three tasks (a fixed number of steps)
    sol = lib.full((3,), 1 / 3, dtype=dt)
    for _ in range(15):
        t_iter = lib.argmin(M @ sol)
        v1v1 = sol @ M @ sol
        v1v2 = sol @ M[:, t_iter]
        v2v2 = M[t_iter, t_iter]
        nc = ((v2v2 - v1v2) / (v1v1 + v2v2 - 2 * v1v2)).clamp(0.0, 1.0)
        new_sol = nc * sol
        new_sol[t_iter] += 1 - nc
        sol = new_sol
    rec("sol", sol)
    rec("min_norm", (sol @ G).norm())
    # scale the task losses by the solution and backpropagate through the trunk
    model.zero_grad()
    _, outs = model(x)
    total = sum(s * li for s, li in zip(sol.tolist(), _task_losses(lib, outs, ys), strict=False))
    total.backward()
    rec.params("p", model, grads=True, view=lambda n, p: p.grad if p.grad is not None else p)


def p_accumulate(lib, dt, rec):
    """Per-task backward passes accumulated into .grad by hand."""
    model = _net(lib, dt, seed=12)
    x, ys = _data(lib, dt, seed=13)
    params = list(model.parameters())
    _, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    per_task = []
    for i, li in enumerate(losses):
        model.zero_grad(set_to_none=(i % 2 == 0))
        li.backward(retain_graph=i < 2)
        per_task.append([None if p.grad is None else p.grad.clone() for p in params])
        rec(f"none.{i}", str([p.grad is None for p in params]))
    model.zero_grad()
    for grads in per_task:
        for p, gp in zip(params, grads, strict=False):
            if gp is None:
                continue
            if p.grad is None:
                p.grad = gp.clone()
            else:
                p.grad.add_(gp, alpha=0.5)
    rec.params("acc", model, grads=True)
    # the same through one backward of the weighted sum: the first task once, the rest at half
    model.zero_grad()
    _, outs = model(x)
    ls = _task_losses(lib, outs, ys)
    (ls[0] + 0.5 * ls[1] + 0.5 * ls[2]).backward()
    ref = [p.grad.clone() for p in params]
    model.zero_grad()
    _, outs = model(x)
    ls = _task_losses(lib, outs, ys)
    ls[0].backward(retain_graph=True)
    (0.5 * ls[1]).backward(retain_graph=True)
    (0.5 * ls[2]).backward()
    rec("same", lib.stack([(p.grad - r).abs().max() for p, r in zip(params, ref, strict=False)]))
    # gradient buffers kept by the optimizer-free "manual SGD"
    with lib.no_grad():
        for p in params:
            p.sub_(0.1 * p.grad)
            p.grad.zero_()
    rec.params("after", model, grads=True)


def p_backward_list(lib, dt, rec):
    """torch.autograd.backward with a list of task losses and grad_tensors as weights."""
    model = _net(lib, dt, seed=14)
    x, ys = _data(lib, dt, seed=15)
    _, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    w = [lib.tensor(0.2, dtype=dt), lib.tensor(1.5, dtype=dt), lib.tensor(-0.3, dtype=dt)]
    lib.autograd.backward(losses, grad_tensors=w)
    rec.params("a", model, grads=True)
    model.zero_grad()
    # non-scalar outputs with their own upstream gradients
    _, outs = model(x)
    gs = [_randn(lib, dt, 20 + i, *o.shape) for i, o in enumerate(outs)]
    lib.autograd.backward(outs, gs)
    rec.params("b", model, grads=True)
    model.zero_grad()
    # a tuple, mixed None / tensor grads (None allowed for scalars)
    _, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    lib.autograd.backward((losses[0], outs[1]), grad_tensors=(None, gs[1]))
    rec.params("c", model, grads=True)
    model.zero_grad()
    # Tensor.backward(gradient=) with a weight vector on the stacked losses
    _, outs = model(x)
    stacked = lib.stack(_task_losses(lib, outs, ys))
    stacked.backward(gradient=lib.tensor([1.0, 0.1, 0.01], dtype=dt))
    rec.params("d", model, grads=True)
    # a single tensor, not a list
    model.zero_grad()
    _, outs = model(x)
    lib.autograd.backward(outs[0].sum())
    rec("e", model.heads[0].weight.grad)
    rec("none", str([p.grad is None for p in model.heads[1].parameters()]))


def p_feature_hooks(lib, dt, rec):
    """register_hook on the shared features: capturing and rescaling per-task gradients."""
    model = _net(lib, dt, seed=16)
    x, ys = _data(lib, dt, seed=17)
    z, _ = model(x)
    seen = []

    def capture(grad):
        seen.append(grad.clone())

    h = z.register_hook(capture)
    outs = [head(z) for head in model.heads]
    losses = _task_losses(lib, outs, ys)
    for li in losses:
        li.backward(retain_graph=True)
    h.remove()
    for i, s in enumerate(seen):
        rec(f"seen.{i}", s)
    rec("trunk.g", model.trunk[0].weight.grad)
    # a hook that normalises the gradient reaching the trunk
    model.zero_grad()
    z, outs = model(x)
    h = z.register_hook(lambda g: g / (g.norm() + 1e-8))
    sum(_task_losses(lib, outs, ys)).backward()
    rec("normed.g", model.trunk[0].weight.grad)
    h.remove()
    # per-branch hooks: each head sees its own copy of the features
    model.zero_grad()
    z, _ = model(x)
    branch_norms = []
    outs = []
    for i, head in enumerate(model.heads):
        zi = z.clone()
        zi.register_hook(lambda g, i=i: branch_norms.append((i, g.norm())))
        zi.register_hook(lambda g, i=i: g * (i + 1))
        outs.append(head(zi))
    z.retain_grad()
    sum(_task_losses(lib, outs, ys)).backward()
    rec("order", str([i for i, _ in sorted(branch_norms, key=lambda t: t[0])]))
    rec("bn", lib.stack([n for _, n in sorted(branch_norms, key=lambda t: t[0])]))
    rec("z.grad", z.grad)
    rec("trunk.g2", model.trunk[2].weight.grad)
    # a hook returning None keeps the gradient
    z2, outs = model(x)
    z2.register_hook(lambda g: None)
    rec("hook_none", lib.autograd.grad(outs[0].sum(), z2)[0])


def p_imtl_nash(lib, dt, rec):
    """IMTL-G's closed form (linalg.solve / inv) and a Nash-MTL-like small solve."""
    model = _net(lib, dt, seed=18)
    x, ys = _data(lib, dt, seed=19)
    z, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    grads = lib.stack([lib.autograd.grad(li, z, retain_graph=True)[0].flatten()
                       for li in losses])
    unit = grads / grads.norm(dim=1, keepdim=True)
    D = grads[0:1] - grads[1:]
    U = unit[0:1] - unit[1:]
    A = D @ U.t()
    b = grads[0:1] @ U.t()
    alpha_ = lib.linalg.solve(A.t(), b.t()).t()
    alpha = lib.cat([1 - alpha_.sum(1, keepdim=True), alpha_], dim=1)
    rec("imtl.alpha", alpha)
    rec("imtl.inv", b @ lib.inverse(A))
    rec("imtl.solve_ex", lib.linalg.solve_ex(A.t(), b.t()).result)
    # Nash-MTL: G G^T a = 1/a, a few fixed-point steps by a damped linear solve
    GG = grads @ grads.t()
    GG = GG / GG.diagonal().mean()
    a = lib.ones(3, dtype=dt)
    for _ in range(6):
        rhs = 1.0 / a
        step = lib.linalg.solve(GG + 0.5 * lib.eye(3, dtype=dt), rhs)
        a = (0.5 * a + 0.5 * step).clamp_min(1e-3)
    rec("nash.a", a)
    rec("nash.res", GG @ a - 1 / a)
    # least squares weights: the combination of task gradients closest to their mean
    sol = lib.linalg.lstsq(grads.t(), grads.mean(0, keepdim=True).t())
    rec("lstsq", sol.solution)
    rec("lstsq.rank", str(sol.rank))
    rec("pinv", lib.linalg.pinv(grads.t()) @ grads.mean(0))
    # the weighted loss backpropagates
    model.zero_grad()
    (alpha.detach().flatten() * lib.stack(losses)).sum().backward()
    rec("g", model.trunk[0].weight.grad)


def p_dwa_rlw(lib, dt, rec):
    """Dynamic Weight Average and Random Loss Weighting."""
    model = _net(lib, dt, seed=20)
    x, ys = _data(lib, dt, seed=21)
    opt = lib.optim.SGD(model.parameters(), lr=0.05)
    T, temp = 3, 2.0
    history = []
    g = _gen(lib, 5)
    for step in range(5):
        _, outs = model(x)
        losses = lib.stack(_task_losses(lib, outs, ys))
        if len(history) < 2:
            weights = lib.ones(T, dtype=dt)
        else:
            ratio = history[-1] / history[-2]
            weights = T * lib.softmax(ratio / temp, dim=0)
        rlw = lib.softmax(lib.randn(T, generator=g, dtype=dt), dim=-1)
        opt.zero_grad()
        ((weights + rlw) * losses).sum().backward()
        opt.step()
        history.append(losses.detach())
        rec(f"w.{step}", weights)
        rec(f"rlw.{step}", rlw)
    rec("hist", lib.stack(history))
    rec.params("p", model)


def p_graddrop(lib, dt, rec):
    """GradDrop: a sign-purity mask on the gradients at the shared features."""
    model = _net(lib, dt, seed=22)
    x, ys = _data(lib, dt, seed=23)
    z, _ = model(x)
    feat = z.detach().requires_grad_(True)
    outs = [h(feat) for h in model.heads]
    losses = _task_losses(lib, outs, ys)
    grads = lib.stack([lib.autograd.grad(li, feat, retain_graph=True)[0] for li in losses])
    purity = 0.5 * (1 + grads.sum(0) / (grads.abs().sum(0) + 1e-7))
    u = _rand(lib, dt, 31, *purity.shape)
    mask = (purity > u) * (grads > 0) + (purity < u) * (grads < 0)
    new_grad = (grads * mask).sum(0)
    rec("purity", purity)
    rec("mask", mask)
    rec("new", new_grad)
    model.zero_grad()
    z.backward(new_grad)
    rec.params("p", model, grads=True, view=lambda n, p: p.grad if p.grad is not None else p)
    rec("mask_dtype", str(mask.dtype))


def p_cross_stitch(lib, dt, rec):
    """Cross-stitch units mixing two task columns, trained a few steps."""
    nn = lib.nn

    class CrossStitch(nn.Module):
        def __init__(self, d=5, h=4):
            super().__init__()
            self.a1, self.b1 = nn.Linear(d, h), nn.Linear(d, h)
            self.a2, self.b2 = nn.Linear(h, 1), nn.Linear(h, 3)
            self.alpha = nn.Parameter(lib.tensor([[0.9, 0.1], [0.1, 0.9]]))

        def forward(self, x):
            ha, hb = lib.relu(self.a1(x)), lib.relu(self.b1(x))
            stacked = lib.stack([ha, hb], dim=0)  # (2, N, H)
            mixed = lib.einsum("ij,jnh->inh", self.alpha, stacked)
            return self.a2(mixed[0]), self.b2(mixed[1])

    lib.manual_seed(24)
    model = CrossStitch().to(dt)
    x, ys = _data(lib, dt, seed=25)
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    F = nn.functional
    for step in range(4):
        opt.zero_grad()
        o1, o2 = model(x)
        loss = F.mse_loss(o1, ys[0]) + F.cross_entropy(o2, ys[1])
        loss.backward()
        opt.step()
        rec(f"loss.{step}", loss)
    rec("alpha", model.alpha)
    rec("alpha.grad", model.alpha.grad)


def p_mmoe(lib, dt, rec):
    """MMoE: shared experts, one softmax gate and tower per task."""
    nn = lib.nn

    class MMoE(nn.Module):
        def __init__(self, d=5, e=3, h=4, tasks=2):
            super().__init__()
            self.experts = nn.ModuleList([nn.Sequential(nn.Linear(d, h), nn.ELU())
                                          for _ in range(e)])
            self.gates = nn.ModuleList([nn.Linear(d, e, bias=False) for _ in range(tasks)])
            self.towers = nn.ModuleList([nn.Linear(h, 1) for _ in range(tasks)])

        def forward(self, x):
            ex = lib.stack([m(x) for m in self.experts], dim=1)  # (N, E, H)
            outs, gates = [], []
            for gate, tower in zip(self.gates, self.towers, strict=False):
                gw = lib.softmax(gate(x), dim=-1)
                gates.append(gw)
                outs.append(tower(lib.bmm(gw.unsqueeze(1), ex).squeeze(1)))
            return outs, gates

    lib.manual_seed(26)
    model = MMoE().to(dt)
    x, ys = _data(lib, dt, seed=27)
    opt = lib.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)
    F = nn.functional
    for step in range(3):
        opt.zero_grad()
        (o1, o2), gates = model(x)
        l1 = F.mse_loss(o1, ys[0])
        l2 = F.binary_cross_entropy_with_logits(o2, ys[2], pos_weight=lib.tensor([2.0],
                                                                                dtype=dt))
        (l1 + l2).backward()
        opt.step()
        rec(f"l.{step}", lib.stack([l1, l2]))
    rec("gates", lib.stack(gates))
    rec.params("p", model, grads=True)


def p_missing_labels(lib, dt, rec):
    """Per-task label masks: NaN regression targets, ignore_index classes, weighted BCE."""
    model = _net(lib, dt, seed=28)
    x, (y_reg, y_cls, y_bin) = _data(lib, dt, seed=29)
    y_reg = y_reg.clone()
    y_reg[[1, 4]] = float("nan")
    y_cls = y_cls.clone()
    y_cls[[0, 5, 6]] = -100
    valid = ~lib.isnan(y_reg)
    bin_mask = lib.tensor([1, 1, 0, 1, 0, 1, 1, 1], dtype=dt).unsqueeze(1)
    F = lib.nn.functional
    _, outs = model(x)
    l_reg = F.mse_loss(outs[0][valid], y_reg[valid])
    l_reg2 = (lib.nan_to_num(outs[0] - y_reg) ** 2 * valid).sum() / valid.sum()
    l_cls = F.cross_entropy(outs[1], y_cls)
    l_cls_sum = F.cross_entropy(outs[1], y_cls, reduction="none")
    l_bin = F.binary_cross_entropy_with_logits(outs[2], y_bin, weight=bin_mask,
                                               reduction="sum") / bin_mask.sum()
    rec("l", lib.stack([l_reg, l_reg2, l_cls, l_bin]))
    rec("none", l_cls_sum)
    (l_reg + l_cls + l_bin).backward()
    rec.params("p", model, grads=True)
    # a task with no valid label in the batch: mean over nothing is nan, a guarded version is 0
    y_all = lib.full_like(y_cls, -100)
    rec("empty", F.cross_entropy(outs[1], y_all))
    m = lib.zeros(8, 1, dtype=lib.bool)
    rec("empty_mse", F.mse_loss(outs[0][m], y_reg[m]))
    guarded = (outs[0][m] - y_reg[m]).pow(2).sum() / m.sum().clamp_min(1)
    rec("guarded", guarded)


def p_head_optimizers(lib, dt, rec):
    """One optimizer for the trunk and one per head; set_to_none zero_grad between them."""
    model = _net(lib, dt, seed=30)
    x, ys = _data(lib, dt, seed=31)
    opt_shared = lib.optim.SGD(model.trunk.parameters(), lr=0.05, nesterov=True, momentum=0.8)
    opt_heads = [lib.optim.Adam(h.parameters(), lr=0.01 * (i + 1))
                 for i, h in enumerate(model.heads)]
    sched = lib.optim.lr_scheduler.StepLR(opt_shared, step_size=2, gamma=0.5)
    for step in range(4):
        opt_shared.zero_grad()
        for o in opt_heads:
            o.zero_grad(set_to_none=False)
        _, outs = model(x)
        losses = _task_losses(lib, outs, ys)
        sum(losses).backward()
        opt_shared.step()
        for o in opt_heads:
            o.step()
        sched.step()
        rec(f"lr.{step}", sched.get_last_lr())
    rec.params("p", model)
    rec("state_keys", str(sorted(opt_heads[1].state_dict()["state"].keys())))
    rec("step", opt_heads[0].state_dict()["state"][0]["step"])


def p_grad_cosine(lib, dt, rec):
    """Pairwise cosine similarity of task gradients; conflict statistics; magnitude
    similarity."""
    model = _net(lib, dt, seed=32)
    x, ys = _data(lib, dt, seed=33)
    shared = _shared(model)
    _, outs = model(x)
    G = lib.stack([_flat_grads(lib, li, shared) for li in _task_losses(lib, outs, ys)])
    F = lib.nn.functional
    cos = F.cosine_similarity(G.unsqueeze(1), G.unsqueeze(0), dim=-1)
    rec("cos", cos)
    normed = F.normalize(G, dim=1)
    rec("cos2", normed @ normed.T)
    iu = lib.triu_indices(3, 3, offset=1)
    rec("pairs", cos[iu[0], iu[1]])
    rec("n_conflict", (cos[iu[0], iu[1]] < 0).sum())
    norms = G.norm(dim=1)
    rec("mag_sim", 2 * norms[:, None] * norms[None] / (norms[:, None] ** 2 + norms[None] ** 2))
    rec("cdist", lib.cdist(G, G))
    rec("angle", lib.rad2deg(lib.acos(cos[0, 1].clamp(-1, 1))))


def p_batched_grads(lib, dt, rec):
    """The Jacobian of the task losses w.r.t. shared parameters by is_grads_batched=True."""
    model = _net(lib, dt, seed=34)
    x, ys = _data(lib, dt, seed=35)
    shared = _shared(model)
    _, outs = model(x)
    losses = lib.stack(_task_losses(lib, outs, ys))
    eye = lib.eye(3, dtype=dt)
    jac = lib.autograd.grad(losses, shared, grad_outputs=eye, is_grads_batched=True,
                            retain_graph=True)
    for i, j in enumerate(jac):
        rec(f"jac.{i}", j)
    J = lib.cat([j.flatten(1) for j in jac], dim=1)
    rec("gram", J @ J.T)
    # the same by a loop
    loop = lib.stack([_flat_grads(lib, li, shared) for li in losses])
    rec("diff", (loop - J).abs().max())
    # batched over the shared features (the MGDA-UB variant)
    z, outs = model(x)
    losses = lib.stack(_task_losses(lib, outs, ys))
    (jz,) = lib.autograd.grad(losses, z, lib.eye(3, dtype=dt), is_grads_batched=True)
    rec("jz", jz)


def p_jacobians(lib, dt, rec):
    """autograd.functional.jacobian and torch.func.jacrev over functional_call."""
    model = _net(lib, dt, seed=36)
    x, ys = _data(lib, dt, seed=37)
    names = [n for n, _ in model.named_parameters() if n.startswith("trunk")]
    params = {n: p.detach() for n, p in model.named_parameters()}

    def losses_of(*shared):
        p = dict(params)
        p.update(zip(names, shared, strict=False))
        _, outs = lib.func.functional_call(model, p, (x,))
        return lib.stack(_task_losses(lib, outs, ys))

    jac = lib.autograd.functional.jacobian(losses_of, tuple(params[n] for n in names))
    for n, j in zip(names, jac, strict=False):
        rec("jac." + n, j)

    def losses_dict(shared):
        p = dict(params)
        p.update(shared)
        _, outs = lib.func.functional_call(model, p, (x,))
        return lib.stack(_task_losses(lib, outs, ys))

    jr = lib.func.jacrev(losses_dict)({n: params[n] for n in names})
    for n in names:
        rec("jacrev." + n, jr[n])
    rec("keys", str(list(jr.keys())))


def p_backward_inputs(lib, dt, rec):
    """backward(inputs=...) to send each task's gradient to a chosen set of parameters."""
    model = _net(lib, dt, seed=38)
    x, ys = _data(lib, dt, seed=39)
    z, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    shared = _shared(model)
    losses[0].backward(inputs=shared, retain_graph=True)
    rec("heads_none", str([p.grad is None for p in model.heads.parameters()]))
    rec("s0", shared[0].grad)
    losses[1].backward(inputs=[model.heads[1].weight], retain_graph=True)
    rec("h1", model.heads[1].weight.grad)
    rec("h1b", str(model.heads[1].bias.grad))
    # inputs can be a non-leaf: the features' gradient is accumulated into z.grad
    losses[2].backward(inputs=[z], retain_graph=True)
    rec("z.grad", z.grad)
    # a single tensor as inputs
    losses[2].backward(inputs=model.heads[2].bias)
    rec("h2b", model.heads[2].bias.grad)
    # autograd.grad with a tuple of inputs, shared and head together
    _, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    gs = lib.autograd.grad(losses[1], (shared[0], model.heads[1].weight))
    rec("g0", gs[0])
    rec("g1", gs[1])


def p_grad_vectors(lib, dt, rec):
    """parameters_to_vector / vector_to_parameters round trips of parameters and gradients."""
    model = _net(lib, dt, seed=40)
    x, ys = _data(lib, dt, seed=41)
    vec = lib.nn.utils.parameters_to_vector(model.parameters())
    rec("vec", vec)
    rec("vec.grad_fn", type(vec.grad_fn).__name__ if vec.grad_fn else "None")
    _, outs = model(x)
    sum(_task_losses(lib, outs, ys)).backward()
    gvec = lib.nn.utils.parameters_to_vector(p.grad for p in model.parameters())
    rec("gvec", gvec)
    new = vec.detach() - 0.1 * gvec
    lib.nn.utils.vector_to_parameters(new, model.parameters())
    rec.params("p", model)
    rec("is_leaf", str([p.is_leaf for p in model.parameters()]))
    rec("req", str([p.requires_grad for p in model.parameters()]))
    # the parameters are views of `new`? torch assigns param.data = vec[...].view_as(param)
    new2 = lib.zeros_like(new)
    lib.nn.utils.vector_to_parameters(new2, model.parameters())
    new2.add_(1.0)
    rec("shares", model.trunk[0].weight)
    # gradients written back from a vector
    grads = [lib.zeros_like(p) for p in model.parameters()]
    lib.nn.utils.vector_to_parameters(gvec * 2, grads)
    for p, g in zip(model.parameters(), grads, strict=False):
        p.grad = g
    rec.params("g", model, grads=True)
    # a vector that requires grad: the parameters' data are set, not their graph
    v = gvec.clone().requires_grad_(True)
    lib.nn.utils.vector_to_parameters(v * 1.0, model.parameters())
    rec("leaf_after", str([(p.is_leaf, p.grad_fn is None) for p in model.parameters()][:2]))


def p_famo(lib, dt, rec):
    """FAMO (Liu et al. 2023): task logits updated from the change of log losses."""
    model = _net(lib, dt, seed=42)
    x, ys = _data(lib, dt, seed=43)
    opt = lib.optim.Adam(model.parameters(), lr=0.02)
    w = lib.zeros(3, dtype=dt, requires_grad=True)
    w_opt = lib.optim.Adam([w], lr=0.025, weight_decay=1e-3)
    min_losses = lib.zeros(3, dtype=dt)
    prev = None
    for step in range(4):
        _, outs = model(x)
        losses = lib.stack(_task_losses(lib, outs, ys))
        z = lib.softmax(w, -1)
        D = losses - min_losses + 1e-8
        c = (z / D).sum().detach()
        loss = (D.log() * z / c).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if prev is not None:
            delta = (prev - min_losses + 1e-8).log() - (losses.detach() - min_losses + 1e-8).log()
            with lib.enable_grad():
                d = lib.autograd.grad(lib.softmax(w, -1), w, grad_outputs=delta.detach())[0]
            w_opt.zero_grad()
            w.grad = d
            w_opt.step()
        prev = losses.detach()
        rec(f"z.{step}", z)
        rec(f"loss.{step}", loss)
    rec("w", w)


def p_aligned_mtl(lib, dt, rec):
    """Aligned-MTL: the Gram matrix's eigendecomposition gives a balancing transform."""
    model = _net(lib, dt, seed=44)
    x, ys = _data(lib, dt, seed=45)
    shared = _shared(model)
    _, outs = model(x)
    G = lib.stack([_flat_grads(lib, li, shared) for li in _task_losses(lib, outs, ys)])
    M = G @ G.T
    lam, V = lib.linalg.eigh(M)
    tol = lam.max() * max(M.shape) * lib.finfo(dt).eps
    rank = int((lam > tol).sum())
    order = lib.argsort(lam, descending=True)[:rank]
    lam, V = lam[order], V[:, order]
    sigma = lib.diag(1 / lam.sqrt())
    B = lam[-1].sqrt() * (V @ sigma @ V.T)
    alpha = B.sum(0)
    rec("lam", lam)
    rec("rank", rank)
    # eigenvectors have a sign ambiguity: record the sign-free transform only
    rec("B", B)
    rec("alpha", alpha)
    rec("g", alpha @ G)
    # the SVD route gives the same singular values
    rec("sv", lib.linalg.svdvals(G) ** 2)


def p_param_hooks(lib, dt, rec):
    """Gradient hooks on shared parameters: per-task gradients collected as they accumulate."""
    model = _net(lib, dt, seed=46)
    x, ys = _data(lib, dt, seed=47)
    w = model.trunk[0].weight
    collected = []
    h1 = w.register_hook(lambda g: collected.append(g.clone()))
    acc = []
    h2 = w.register_post_accumulate_grad_hook(lambda p: acc.append(p.grad.clone()))
    _, outs = model(x)
    for li in _task_losses(lib, outs, ys):
        li.backward(retain_graph=True)
    rec("collected", lib.stack(collected))
    rec("acc", lib.stack(acc))
    h1.remove()
    h2.remove()
    # a projecting hook: drop the component along a fixed direction
    d = _randn(lib, dt, 48, *w.shape)
    d = d / d.norm()
    w.grad = None
    w.register_hook(lambda g: g - (g * d).sum() * d)
    _, outs = model(x)
    sum(_task_losses(lib, outs, ys)).backward()
    rec("proj", w.grad)
    rec("dot", (w.grad * d).sum())


def p_errors(lib, dt, rec):
    """Errors users hit: backward twice, grad_tensors mismatches, non-scalar implicit grads."""
    model = _net(lib, dt, seed=50)
    x, ys = _data(lib, dt, seed=51)

    def twice():
        _, outs = model(x)
        loss = sum(_task_losses(lib, outs, ys))
        loss.backward()
        loss.backward()

    rec.err("twice", twice)

    def twice_grad():
        _, outs = model(x)
        loss = _task_losses(lib, outs, ys)[1]
        lib.autograd.grad(loss, model.heads[1].weight)
        lib.autograd.grad(loss, model.heads[1].weight)

    rec.err("twice_grad", twice_grad)

    def tasks_in_turn():
        _, outs = model(x)
        losses = _task_losses(lib, outs, ys)
        for li in losses:
            li.backward()  # the second one reaches the freed trunk

    rec.err("in_turn", tasks_in_turn)
    _, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    one = lib.tensor(1.0, dtype=dt)
    rec.err("len", lambda: lib.autograd.backward(losses, grad_tensors=[one, one]))
    rec.err("shape", lambda: lib.autograd.backward(
        losses, grad_tensors=[one, lib.ones(3, dtype=dt), one], retain_graph=True))
    rec.err("shape2", lambda: lib.autograd.backward(
        [outs[1]], grad_tensors=[lib.ones(8, 1, dtype=dt)], retain_graph=True))
    rec.err("nonscalar", lambda: lib.autograd.backward(outs, retain_graph=True))
    rec.err("nonscalar2", lambda: outs[1].backward(retain_graph=True))
    rec.err("stack_nonscalar", lambda: lib.stack(losses).backward(retain_graph=True))
    rec.err("noreq", lambda: lib.autograd.backward([losses[0].detach()]))
    rec.err("noreq2", lambda: lib.autograd.backward([losses[0], losses[1].detach()],
                                                     retain_graph=True))
    rec.err("empty_inputs", lambda: losses[0].backward(inputs=[], retain_graph=True))
    rec.err("grad_type", lambda: lib.autograd.backward(losses[0], grad_tensors=[1.0],
                                                       retain_graph=True))
    rec.err("grad_dtype", lambda: lib.autograd.backward(
        [outs[1]], grad_tensors=[lib.ones(8, 3, dtype=lib.int64)], retain_graph=True))
    rec.err("grad_bool", lambda: lib.autograd.backward(
        [outs[1]], grad_tensors=[lib.ones(8, 3, dtype=lib.bool)], retain_graph=True))


def p_errors_grad(lib, dt, rec):
    """autograd.grad errors: unused parameters, allow_unused, materialize_grads, shapes."""
    model = _net(lib, dt, seed=52)
    x, ys = _data(lib, dt, seed=53)
    _, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    head2 = model.heads[2].weight
    rec.err("unused", lambda: lib.autograd.grad(losses[0], [model.trunk[0].weight, head2],
                                                retain_graph=True))
    g = lib.autograd.grad(losses[0], [model.trunk[0].weight, head2], retain_graph=True,
                          allow_unused=True)
    rec("unused_none", str(g[1]))
    rec("g0", g[0])
    g = lib.autograd.grad(losses[0], [head2], retain_graph=True, materialize_grads=True)
    rec("materialized", g[0])
    rec.err("mat_false", lambda: lib.autograd.grad(
        losses[0], [head2], retain_graph=True, allow_unused=False, materialize_grads=True))
    rec.err("go_shape", lambda: lib.autograd.grad(
        losses[0], head2, grad_outputs=lib.ones(3, dtype=dt), retain_graph=True,
        allow_unused=True))
    rec.err("go_shape2", lambda: lib.autograd.grad(
        [outs[1]], model.heads[1].weight, grad_outputs=[lib.ones(3, 8, dtype=dt)],
        retain_graph=True))
    rec.err("go_len", lambda: lib.autograd.grad(
        losses, model.trunk[0].weight, grad_outputs=[None], retain_graph=True))
    rec.err("noreq_input", lambda: lib.autograd.grad(losses[0], x, retain_graph=True))
    rec.err("noreq_output", lambda: lib.autograd.grad(losses[0].detach(), head2))
    rec.err("nonscalar", lambda: lib.autograd.grad(outs[1], model.heads[1].weight,
                                                   retain_graph=True))
    rec.err("batched_shape", lambda: lib.autograd.grad(
        lib.stack(losses), model.heads[1].weight, grad_outputs=lib.eye(2, dtype=dt),
        is_grads_batched=True, retain_graph=True))
    rec.err("empty_inputs", lambda: lib.autograd.grad(losses[0], [], retain_graph=True))
    rec.err("input_list_type", lambda: lib.autograd.grad(losses[0], [1.0], retain_graph=True))
    rec.err("outputs_type", lambda: lib.autograd.grad([1.0], head2, retain_graph=True))


def p_errors_vectors(lib, dt, rec):
    """nn.utils vector helpers' errors on the gradient-surgery path."""
    model = _net(lib, dt, seed=54)
    params = list(model.parameters())
    vec = lib.nn.utils.parameters_to_vector(params)
    U = lib.nn.utils
    rec.err("p2v_notensor", lambda: U.parameters_to_vector([1.0, 2.0]))
    rec.err("v2p_notensor", lambda: U.vector_to_parameters(vec.tolist(), params))
    rec.err("v2p_short", lambda: U.vector_to_parameters(vec[:-3], model.parameters()))
    rec.err("v2p_long", lambda: U.vector_to_parameters(lib.cat([vec, vec[:2]]),
                                                         model.parameters()))
    rec.err("dot_shape", lambda: lib.dot(vec, vec[:-1]))
    rec.err("dot_2d", lambda: lib.dot(vec.view(1, -1), vec))
    rec.err("dot_dtype", lambda: lib.dot(vec, vec.to(lib.float16)))
    rec.err("solve_sing", lambda: lib.linalg.solve(lib.zeros(2, 2, dtype=dt),
                                                   lib.ones(2, dtype=dt)))
    rec.err("solve_shape", lambda: lib.linalg.solve(lib.eye(3, dtype=dt),
                                                    lib.ones(2, dtype=dt)))
    rec.err("lstsq_shape", lambda: lib.linalg.lstsq(lib.ones(3, 2, dtype=dt),
                                                    lib.ones(4, 1, dtype=dt)))
    rec.err("randperm_gen", lambda: lib.randperm(3, generator=5))
    rec.err("clip_nan", lambda: _clip_nan(lib, dt))


def _clip_nan(lib, dt):
    p = lib.nn.Parameter(lib.ones(3, dtype=dt))
    p.grad = lib.tensor([1.0, float("nan"), 0.0], dtype=dt)
    return lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def p_saved_freed(lib, dt, rec):
    """Saved tensors after backward: a retained graph keeps them, a freed graph refuses."""
    model = _net(lib, dt, seed=56)
    x, ys = _data(lib, dt, seed=57)
    z, outs = model(x)
    w = lib.tensor([0.5, 2.0, 1.0], dtype=dt, requires_grad=True)
    weighted = w * lib.stack(_task_losses(lib, outs, ys))
    loss = weighted.sum()
    node = weighted.grad_fn
    rec("name", type(node).__name__)
    rec("next", str([type(f).__name__ if f is not None else None
                     for f, _ in node.next_functions]))
    rec("out_next", str([type(f).__name__ for f, _ in outs[0].grad_fn.next_functions]))
    loss.backward(retain_graph=True)
    rec("self_retained", node._saved_self)
    rec("other_retained", node._saved_other)
    loss.backward()
    rec.err("self_freed", lambda: node._saved_self)
    rec.err("other_freed", lambda: node._saved_other)
    rec("w.grad", w.grad)
    # a second loss through the same trunk still needs its own trunk graph
    outs2 = [h(z) for h in model.heads]
    rec.err("second_head", lambda: _task_losses(lib, outs2, ys)[1].backward())
    # detaching the features gives the heads their own graph
    zd = z.detach()
    loss_d = _task_losses(lib, [h(zd) for h in model.heads], ys)[1]
    loss_d.backward()
    rec("ok", model.heads[1].weight.grad)


def p_double_backward(lib, dt, rec):
    """Gradient-norm penalties through create_graph (GradNorm's inner step) and a grad of a
    grad w.r.t. the task weights."""
    model = _net(lib, dt, seed=58)
    x, ys = _data(lib, dt, seed=59)
    w = lib.tensor([1.0, 0.7, 1.3], dtype=dt, requires_grad=True)
    _, outs = model(x)
    losses = lib.stack(_task_losses(lib, outs, ys))
    shared = _shared(model)
    grads = lib.autograd.grad((w * losses).sum(), shared, create_graph=True)
    gnorm2 = sum((g**2).sum() for g in grads)
    rec("gnorm2", gnorm2)
    rec("gfn", type(grads[0].grad_fn).__name__)
    dw = lib.autograd.grad(gnorm2, w, retain_graph=True)[0]
    rec("dw", dw)
    gnorm2.backward()
    rec.params("p", model, grads=True, view=lambda n, p: p.grad if p.grad is not None else p)
    # Hessian-vector product of one task loss along another's gradient
    model.zero_grad()
    _, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    g0 = lib.autograd.grad(losses[0], shared, create_graph=True)
    g1 = lib.autograd.grad(losses[1], shared, retain_graph=True)
    hv = lib.autograd.grad(g0, shared, grad_outputs=g1)
    for i, h in enumerate(hv):
        rec(f"hv.{i}", h)


def p_gradvac(lib, dt, rec):
    """GradVac: per-pair targets of cosine similarity kept as an EMA; gradients adjusted when
    below it."""
    model = _net(lib, dt, seed=60)
    x, ys = _data(lib, dt, seed=61)
    shared = _shared(model)
    opt = lib.optim.SGD(model.parameters(), lr=0.05)
    rho = lib.zeros(3, 3, dtype=dt)
    beta = 0.5
    g = _gen(lib, 62)
    for step in range(3):
        opt.zero_grad()
        _, outs = model(x)
        losses = _task_losses(lib, outs, ys)
        G = lib.stack([_flat_grads(lib, li, shared) for li in losses])
        pc = G.clone()
        for i in range(3):
            order = lib.randperm(3, generator=g)
            for j in order[order != i].tolist():
                cos = lib.dot(pc[i], G[j]) / (pc[i].norm() * G[j].norm())
                if cos < rho[i, j]:
                    wj = pc[i].norm() * (rho[i, j] * (1 - cos**2).sqrt()
                                         - cos * (1 - rho[i, j] ** 2).sqrt()) / (
                        G[j].norm() * (1 - rho[i, j] ** 2).sqrt())
                    pc[i] += G[j] * wj
                rho[i, j] = (1 - beta) * rho[i, j] + beta * cos
        merged = pc.sum(0)
        chunks = lib.split(merged, [p.numel() for p in shared])
        for p, c in zip(shared, chunks, strict=False):
            p.grad = c.view(p.shape).clone()
        lib.autograd.backward(losses, inputs=list(model.heads.parameters()))
        opt.step()
        rec(f"rho.{step}", rho)
    rec.params("p", model)


def p_gradient_edges(lib, dt, rec):
    """Gradients w.r.t. the shared features' GradientEdge (torchjd-style Jacobians), then the
    aggregated vector pushed into the trunk with backward(inputs=...)."""
    model = _net(lib, dt, seed=64)
    x, ys = _data(lib, dt, seed=65)
    z, outs = model(x)
    edge = lib.autograd.graph.get_gradient_edge(z)
    rec("edge.node", type(edge.node).__name__)
    rec("edge.nr", edge.output_nr)
    losses = _task_losses(lib, outs, ys)
    rows = [lib.autograd.grad(li, edge, retain_graph=True)[0] for li in losses]
    J = lib.stack([r.flatten() for r in rows])
    rec("J", J)
    weights = lib.linalg.solve(J @ J.T + 1e-3 * lib.eye(3, dtype=dt), lib.ones(3, dtype=dt))
    weights = weights / weights.sum()
    rec("weights", weights)
    agg = (weights[:, None, None] * lib.stack(rows)).sum(0)
    lib.autograd.backward(z, grad_tensors=agg, inputs=list(model.trunk.parameters()),
                          retain_graph=True)
    rec.params("trunk", model.trunk, grads=True)
    # backward into the heads only, from the losses, with the edge's gradient unused
    lib.autograd.backward(losses, inputs=list(model.heads.parameters()))
    rec.params("heads", model.heads, grads=True)


def p_multi_grad_hook(lib, dt, rec):
    """register_multi_grad_hook over the task heads' outputs: "all" sees every task's gradient
    of one backward (None for tasks not reached), "any" fires once per backward."""
    model = _net(lib, dt, seed=66)
    x, ys = _data(lib, dt, seed=67)
    _, outs = model(x)
    seen_all, seen_any = [], []

    def on_all(grads):
        seen_all.append([None if g is None else g.norm() for g in grads])

    h_all = lib.autograd.graph.register_multi_grad_hook(outs, on_all)
    h_any = lib.autograd.graph.register_multi_grad_hook(
        outs, lambda g: seen_any.append(g.norm()), mode="any")
    losses = _task_losses(lib, outs, ys)
    losses[0].backward(retain_graph=True)
    (losses[1] + losses[2]).backward(retain_graph=True)
    sum(losses).backward(retain_graph=True)
    for k, row in enumerate(seen_all):
        rec(f"all.{k}.none", str([g is None for g in row]))
        rec(f"all.{k}", lib.stack([g for g in row if g is not None]))
    rec("any", lib.stack(seen_any))
    h_all.remove()
    h_any.remove()
    losses[1].backward()
    rec("after_remove", str((len(seen_all), len(seen_any))))


def p_module_hooks(lib, dt, rec):
    """Full backward (pre-)hooks on the shared trunk fire once per task backward; a pre-hook
    scales the gradient reaching the trunk."""
    model = _net(lib, dt, seed=68)
    x, ys = _data(lib, dt, seed=69)
    log = []
    trunk = model.trunk
    h1 = trunk.register_full_backward_hook(
        lambda m, gi, go: log.append((str(gi[0] is None), go[0].norm())))
    h2 = trunk[2].register_full_backward_pre_hook(lambda m, go: (go[0] * 0.5,))
    _, outs = model(x)
    for li in _task_losses(lib, outs, ys):
        li.backward(retain_graph=True)
    rec("gi_none", str([a for a, _ in log]))
    rec("go", lib.stack([b for _, b in log]))
    rec("g", trunk[0].weight.grad)
    h1.remove()
    h2.remove()
    # with an input that requires grad the hook sees its gradient
    xg = x.clone().requires_grad_(True)
    got = []
    trunk.register_full_backward_hook(lambda m, gi, go: got.append(gi[0].clone()))
    _, outs = model(xg)
    _task_losses(lib, outs, ys)[1].backward()
    rec("gi", got[0])
    rec("xg.grad", xg.grad)


def p_grad_reversal(lib, dt, rec):
    """A gradient-reversal / gradient-scaling custom Function between the trunk and an
    adversarial task head (DANN-style), checked by gradcheck and gradgradcheck."""

    class ScaleGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, coeff):
            ctx.coeff = coeff
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.coeff, None

    model = _net(lib, dt, seed=70)
    x, ys = _data(lib, dt, seed=71)
    z, outs = model(x)
    rev = ScaleGrad.apply(z, -0.3)
    rec("name", type(rev.grad_fn).__name__)
    adv = model.heads[2](rev)
    F = lib.nn.functional
    loss = F.mse_loss(outs[0], ys[0]) + F.binary_cross_entropy_with_logits(adv, ys[2])
    loss.backward()
    rec.params("p", model, grads=True)
    xd = _randn(lib, lib.float64, 72, 3, 2).requires_grad_(True)
    # a scaled gradient is no derivative of the identity: gradcheck says so; at 1 it is one
    rec("gradcheck_scaled", lib.autograd.gradcheck(lambda t: ScaleGrad.apply(t, -0.7) ** 2,
                                                   (xd,), raise_exception=False))
    rec("gradcheck", lib.autograd.gradcheck(lambda t: ScaleGrad.apply(t, 1.0) ** 2, (xd,)))
    rec("gradgradcheck", lib.autograd.gradgradcheck(lambda t: ScaleGrad.apply(t, 1.0) ** 3,
                                                     (xd,)))

    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, coeff):
            return x * coeff

        @staticmethod
        def backward(ctx, grad):
            return grad

    rec.err("bad_count", lambda: Bad.apply(z.detach().requires_grad_(True), 2.0).sum().backward())

    class BadShape(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad[:1]

    rec.err("bad_shape", lambda: BadShape.apply(z.detach().requires_grad_(True)).sum().backward())


def p_clip_per_task(lib, dt, rec):
    """Each task's gradient clipped to a norm before the sum; foreach norms of grad lists;
    get_total_norm and clip_grads_with_norm_."""
    model = _net(lib, dt, seed=72)
    x, ys = _data(lib, dt, seed=73)
    params = list(model.parameters())
    _, outs = model(x)
    total = [lib.zeros_like(p) for p in params]
    norms = []
    for li in _task_losses(lib, outs, ys):
        model.zero_grad()
        li.backward(retain_graph=True)
        norms.append(lib.nn.utils.clip_grad_norm_(model.parameters(), 0.5))
        lib._foreach_add_(total, [p.grad if p.grad is not None else lib.zeros_like(p)
                                  for p in params])
    rec("norms", lib.stack(norms))
    rec("fe_norm", lib.stack(lib._foreach_norm(total)))
    rec("fe_inf", lib.stack(lib._foreach_norm(total, ord=float("inf"))))
    for p, g in zip(params, total, strict=False):
        p.grad = g
    tn = lib.nn.utils.get_total_norm([p.grad for p in params], norm_type=3.0)
    rec("total_norm", tn)
    lib.nn.utils.clip_grads_with_norm_(params, 0.25, tn)
    rec.params("clipped", model, grads=True)
    rec("value", lib.nn.utils.clip_grad_value_(params, 0.01))
    rec.params("valued", model, grads=True)
    lib._foreach_mul_(total, 2.0)
    rec("fe_mul", lib.cat([g.flatten() for g in total]))


def p_func_tasks(lib, dt, rec):
    """torch.func: per-task gradients by vmap over one-hot task weights of grad(functional_call),
    with has_aux carrying the losses."""
    model = _net(lib, dt, seed=74)
    x, ys = _data(lib, dt, seed=75)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def weighted_loss(p, w):
        _, outs = lib.func.functional_call(model, p, (x,))
        losses = lib.stack(_task_losses(lib, outs, ys))
        return (w * losses).sum(), losses

    grad_fn = lib.func.grad(weighted_loss, has_aux=True)
    g_sum, losses = grad_fn(params, lib.ones(3, dtype=dt))
    rec("losses", losses)
    for k in ("trunk.0.weight", "heads.1.bias"):
        rec("sum." + k, g_sum[k])
    per_task, aux = lib.func.vmap(grad_fn, in_dims=(None, 0))(params, lib.eye(3, dtype=dt))
    rec("aux", aux)
    for k in ("trunk.0.weight", "trunk.2.bias", "heads.0.weight"):
        rec("task." + k, per_task[k])
    rec("sum_of_tasks", per_task["trunk.0.weight"].sum(0) - g_sum["trunk.0.weight"])
    (g, v) = lib.func.grad_and_value(lambda p: weighted_loss(p, lib.ones(3, dtype=dt))[0])(params)
    rec("value", v)


def p_anomaly(lib, dt, rec):
    """A task loss that turns NaN in backward, found by detect_anomaly; nan_to_num guards."""
    model = _net(lib, dt, seed=76)
    x, ys = _data(lib, dt, seed=77)

    def step():
        _, outs = model(x)
        losses = _task_losses(lib, outs, ys)
        bad = (outs[0] - outs[0].detach()).abs().sqrt().sum()  # sqrt of 0: inf * 0 in backward
        (sum(losses) + bad).backward()

    with lib.autograd.detect_anomaly(check_nan=True):
        rec.err("nan", step)
    model.zero_grad()
    step()
    rec("nan_grads", str([bool(lib.isnan(p.grad).any()) for p in model.parameters()]))
    for p in model.parameters():
        p.grad = lib.nan_to_num(p.grad, nan=0.0, posinf=1.0, neginf=-1.0)
    rec.params("p", model, grads=True)
    rec("is_enabled", lib.is_anomaly_enabled())


def p_round_robin(lib, dt, rec):
    """Two task datasets of different sizes cycled through DataLoaders with seeded generators,
    one task per step, a shared trunk, per-task losses logged."""
    data = lib.utils.data
    g = _gen(lib, 78)
    xa = lib.randn(10, 5, generator=g, dtype=dt)
    ya = lib.randn(10, 1, generator=g, dtype=dt)
    xb = lib.randn(7, 5, generator=g, dtype=dt)
    yb = lib.randint(0, 3, (7,), generator=g)
    loaders = [
        data.DataLoader(data.TensorDataset(xa, ya), batch_size=4, shuffle=True,
                        generator=_gen(lib, 1)),
        data.DataLoader(data.TensorDataset(xb, yb), batch_size=3, shuffle=True,
                        generator=_gen(lib, 2), drop_last=True),
    ]
    rec("lens", str([len(dl) for dl in loaders]))
    model = _net(lib, dt, seed=79)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    iters = [iter(dl) for dl in loaders]
    F = lib.nn.functional
    log = []
    for step in range(7):
        task = step % 2
        try:
            xb_, yb_ = next(iters[task])
        except StopIteration:
            iters[task] = iter(loaders[task])
            xb_, yb_ = next(iters[task])
        _, outs = model(xb_)
        loss = F.mse_loss(outs[0], yb_) if task == 0 else F.cross_entropy(outs[1], yb_)
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append(loss.detach())
        rec(f"batch.{step}", yb_)
    rec("log", lib.stack(log))
    rec.params("p", model)


def p_film_tasks(lib, dt, rec):
    """Task-conditioned trunk: FiLM scales and shifts from a task embedding, one output layer
    indexed by task id."""
    nn = lib.nn

    class FiLMNet(nn.Module):
        def __init__(self, d=5, h=6, tasks=3, out=3):
            super().__init__()
            self.inp = nn.Linear(d, h)
            self.emb = nn.Embedding(tasks, 2 * h)
            self.out = nn.Linear(h, out)

        def forward(self, x, task):
            gamma, beta = self.emb(task).chunk(2, dim=-1)
            return self.out(lib.relu(self.inp(x)) * (1 + gamma) + beta)

    lib.manual_seed(80)
    model = FiLMNet().to(dt)
    x, (_, y_cls, _) = _data(lib, dt, seed=81)
    task = lib.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    for step in range(3):
        opt.zero_grad()
        logits = model(x, task)
        per = lib.nn.functional.cross_entropy(logits, y_cls, reduction="none")
        by_task = lib.zeros(3, dtype=dt).index_add(0, task, per) / lib.bincount(task).to(dt)
        by_task.sum().backward()
        opt.step()
        rec(f"by_task.{step}", by_task)
    rec("emb.grad", model.emb.weight.grad)
    rec("scatter_mean", lib.zeros(3, dtype=dt).scatter_reduce(0, task, per, "mean",
                                                              include_self=False))


def p_imtl_l(lib, dt, rec):
    """IMTL-L: learned loss scales s_t with L = sum(exp(s_t) L_t - s_t); and the automatic
    weighted loss module (sum(0.5 / p^2 L + log(1 + p^2))) saved and loaded."""
    nn = lib.nn

    class AutomaticWeightedLoss(nn.Module):
        def __init__(self, num=3):
            super().__init__()
            self.params = nn.Parameter(lib.ones(num))

        def forward(self, *losses):
            total = 0
            for i, loss in enumerate(losses):
                p2 = self.params[i] ** 2
                total = total + 0.5 / p2 * loss + lib.log(1 + p2)
            return total

    model = _net(lib, dt, seed=82)
    x, ys = _data(lib, dt, seed=83)
    awl = AutomaticWeightedLoss().to(dt)
    s = lib.zeros(3, dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([{"params": model.parameters()},
                          {"params": awl.parameters(), "weight_decay": 0},
                          {"params": [s], "lr": 0.1}], lr=0.01, weight_decay=1e-4)
    for step in range(3):
        opt.zero_grad()
        _, outs = model(x)
        losses = _task_losses(lib, outs, ys)
        total = awl(*losses) + (lib.exp(s) * lib.stack(losses) - s).sum()
        total.backward()
        opt.step()
        rec(f"total.{step}", total)
    rec("awl", awl.params)
    rec("s", s)
    import io

    buf = io.BytesIO()
    lib.save({"awl": awl.state_dict(), "opt": opt.state_dict()}, buf)
    buf.seek(0)
    state = lib.load(buf)
    awl2 = AutomaticWeightedLoss().to(dt)
    awl2.load_state_dict(state["awl"])
    rec("loaded", awl2.params)
    groups = state["opt"]["param_groups"]
    rec("groups", str([sorted(k for k in g if k != "params") for g in groups]))
    rec("wd", str([g["weight_decay"] for g in state["opt"]["param_groups"]]))


def _grad_dim(model):
    return sum(p.numel() for p in model.trunk.parameters())


def _compute_grads(lib, model, losses, mode):
    """LibMTL's _compute_grad: a (T, grad_dim) matrix of the shared gradients, by backward into
    .grad (then zeroed) or by autograd.grad."""
    grads = lib.zeros(len(losses), _grad_dim(model), dtype=losses[0].dtype)
    for tn, loss in enumerate(losses):
        if mode == "backward":
            loss.backward(retain_graph=True)
            grads[tn] = lib.cat([p.grad.view(-1) for p in model.trunk.parameters()])
            model.trunk.zero_grad(set_to_none=False)
        else:
            g = list(lib.autograd.grad(loss, model.trunk.parameters(), retain_graph=True))
            grads[tn] = lib.cat([gi.view(-1) for gi in g])
    return grads


def _reset_grad(model, new_grads):
    """LibMTL's _reset_grad: the legacy .data writes of a flat gradient into the trunk."""
    beg = 0
    for param in model.trunk.parameters():
        end = beg + param.data.numel()
        param.grad.data = new_grads[beg:end].contiguous().view(param.data.size()).data.clone()
        beg = end


def p_libmtl_style(lib, dt, rec):
    """LibMTL-style weighting: shared gradients by both modes, GLS (geometric mean), STCH
    (smooth Tchebycheff by logsumexp), DB-MTL (log losses, EMA of normalised gradients)."""
    model = _net(lib, dt, seed=84)
    x, ys = _data(lib, dt, seed=85)
    _, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    g_back = _compute_grads(lib, model, losses, "backward")
    g_auto = _compute_grads(lib, model, losses, "autograd")
    rec("g_back", g_back)
    rec("same", (g_back - g_auto).abs().max())
    # GLS: the geometric mean of the losses
    L = lib.stack(losses)
    gls = lib.pow(L.prod(), 1.0 / 3)
    rec("gls", gls)
    # STCH: mu * logsumexp((L - nadir) / mu), the weights it implies
    mu, nadir = 0.5, lib.zeros(3, dtype=dt)
    stch = mu * lib.logsumexp((L - nadir) / mu, dim=0)
    rec("stch", stch)
    rec("stch_w", lib.softmax((L - nadir) / mu, dim=0))
    # DB-MTL: gradients of log losses, an EMA buffer, rescaled to the largest norm
    model.zero_grad()
    log_losses = [lib.log(li + 1e-8) for li in losses]
    grads = _compute_grads(lib, model, log_losses, "backward")
    buf = lib.zeros_like(grads)
    for step in range(3):
        beta = 0.9 / (step + 1) ** 0.5
        buf = grads * beta + (1 - beta) * buf
    u_grad = buf.norm(dim=-1)
    alpha = u_grad.max() / (u_grad + 1e-8)
    new_grads = (alpha.view(-1, 1) * buf).sum(0)
    rec("alpha", alpha)
    rec("new", new_grads)
    (gls + stch).backward(retain_graph=True)
    _reset_grad(model, new_grads)
    rec.params("p", model, grads=True)
    rec("grad_is_new", str([p.grad.data_ptr() != 0 for p in model.trunk.parameters()]))


def p_pcgrad_masks(lib, dt, rec):
    """PCGrad as the popular standalone implementation writes it: grads and has_grad masks per
    parameter, a random task order, projected gradients averaged where every task has one."""
    import random

    model = _net(lib, dt, seed=86)
    x, ys = _data(lib, dt, seed=87)
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    _, outs = model(x)
    objectives = _task_losses(lib, outs, ys)
    grads, shapes, has_grads = [], [], []
    for obj in objectives:
        opt.zero_grad(set_to_none=True)
        obj.backward(retain_graph=True)
        grad, shape, has_grad = [], [], []
        for group in opt.param_groups:
            for p in group["params"]:
                shape.append(p.shape)
                if p.grad is None:
                    grad.append(lib.zeros_like(p))
                    has_grad.append(lib.zeros_like(p))
                    continue
                grad.append(p.grad.clone())
                has_grad.append(lib.ones_like(p))
        grads.append(lib.cat([g.flatten() for g in grad]))
        has_grads.append(lib.cat([g.flatten() for g in has_grad]))
        shapes.append(shape)
    shared = lib.stack(has_grads).prod(0).bool()
    rec("shared_dtype", str(lib.stack(has_grads).prod(0).dtype))
    rec("n_shared", shared.sum())
    pc_grad = [g.clone() for g in grads]
    rng = random.Random(0)
    for g_i in pc_grad:
        order = list(range(len(grads)))
        rng.shuffle(order)
        for j in order:
            g_j = grads[j]
            g_i_g_j = lib.dot(g_i, g_j)
            if g_i_g_j < 0:
                g_i -= g_i_g_j * g_j / (g_j.norm() ** 2)
    merged = lib.zeros_like(grads[0])
    merged[shared] = lib.stack([g[shared] for g in pc_grad]).mean(dim=0)
    merged[~shared] = lib.stack([g[~shared] for g in pc_grad]).sum(dim=0)
    rec("merged", merged)
    idx = 0
    for group in opt.param_groups:
        for p, shape in zip(group["params"], shapes[0], strict=False):
            length = math.prod(shape)
            p.grad = merged[idx : idx + length].view(shape).clone()
            idx += length
    opt.step()
    rec.params("p", model)


def p_simplex(lib, dt, rec):
    """MoCo-MTL-style weights: a projected-gradient step onto the probability simplex by the
    sort-and-cumsum projection, a few tracked steps."""

    def project(v):
        n = v.numel()
        u, _ = lib.sort(v, descending=True)
        css = lib.cumsum(u, dim=0)
        ind = lib.arange(1, n + 1, dtype=v.dtype)
        cond = u - (css - 1) / ind > 0
        rho = lib.nonzero(cond).max()
        theta = (css[rho] - 1) / (rho + 1)
        return lib.clamp(v - theta, min=0)

    model = _net(lib, dt, seed=88)
    x, ys = _data(lib, dt, seed=89)
    shared = _shared(model)
    lam = lib.full((3,), 1 / 3, dtype=dt)
    y = None
    for step in range(3):
        _, outs = model(x)
        losses = _task_losses(lib, outs, ys)
        G = lib.stack([_flat_grads(lib, li, shared) for li in losses])
        y = G if y is None else y - 0.5 * (y - G)
        lam = project(lam - 0.3 * (y @ (y.T @ lam)))
        with lib.no_grad():
            upd = y.T @ lam
            off = 0
            for p in shared:
                p -= 0.05 * upd[off : off + p.numel()].view_as(p)
                off += p.numel()
        rec(f"lam.{step}", lam)
    rec("sum", lam.sum())
    rec("proj_edge", project(lib.tensor([2.0, -1.0, 0.5], dtype=dt)))
    rec.params("p", model)


def p_mgda_numpy(lib, dt, rec):
    """MGDA's original min-norm solver runs in NumPy on .cpu().numpy() of the gradients; its
    weights come back by from_numpy."""
    import numpy as np

    model = _net(lib, dt, seed=90)
    x, ys = _data(lib, dt, seed=91)
    z, _ = model(x)
    rep = z.detach().requires_grad_()
    losses = _task_losses(lib, [h(rep) for h in model.heads], ys)
    vecs = [lib.autograd.grad(li, rep, retain_graph=True)[0].flatten() for li in losses]
    G = lib.stack(vecs).cpu().detach().numpy()
    M = G @ G.T
    sol = np.full(3, 1 / 3)
    for _ in range(20):
        grad_dir = M @ sol
        t = int(np.argmin(grad_dir))
        v1v1, v1v2, v2v2 = sol @ M @ sol, sol @ M[:, t], M[t, t]
        gamma = min(max((v2v2 - v1v2) / (v1v1 + v2v2 - 2 * v1v2), 0.0), 1.0)
        sol = gamma * sol
        sol[t] += 1 - gamma
    w = lib.from_numpy(sol.astype(G.dtype))
    rec("w", w)
    rec("w.dtype", str(w.dtype))
    rec("norm", (w @ lib.stack(vecs)).norm())
    total = sum(wi * li for wi, li in zip(w, losses, strict=False))
    rec("total.grad_fn", type(total.grad_fn).__name__)
    total.backward()
    rep_grad = rep.grad
    z.backward(rep_grad)
    rec.params("p", model, grads=True)
    rec("np_scalar", float(np.float64(2.0) * losses[0]))
    rec("np_mul_type", type(np.float64(2.0) * losses[0]).__name__)


def p_errors_engine(lib, dt, rec):
    """The roots' checks of backward/grad in torch's order: gradient types, the position a
    shape mismatch names (torch finds it by list.index, comparing tensors by ==), zip before
    the count, outputs that are no tensors, and is_grads_batched's checks."""
    model = _net(lib, dt, seed=92)
    x, ys = _data(lib, dt, seed=93)
    z, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    one = lib.tensor(1.0, dtype=dt)
    B = lib.autograd.backward
    G = lib.autograd.grad
    w0 = model.trunk[0].weight
    cases = {
        "float_grad": lambda: B(losses, grad_tensors=[one, 0.5, one], retain_graph=True),
        "int_grad": lambda: B(losses[0], grad_tensors=1, retain_graph=True),
        "grad_float_grad": lambda: G(losses, w0, grad_outputs=[one, one, 2.0]),
        "tensor_grad_list": lambda: outs[1].backward([[1.0] * 3] * 8, retain_graph=True),
        "float_output": lambda: B([losses[0], 3.0], retain_graph=True),
        "none_output": lambda: G([None], w0),
        # the position torch names: an earlier 0-d tensor compared to a 3-element one
        "shape_mid": lambda: B(losses, grad_tensors=[one, lib.ones(3, dtype=dt), one]),
        "shape_first": lambda: B(losses, grad_tensors=[lib.ones(2, dtype=dt), one, one]),
        "shape_one_elem": lambda: B(losses, grad_tensors=[one, lib.ones(1, dtype=dt), one]),
        "shape_other_value": lambda: B(losses, [2 * one, lib.ones(1, dtype=dt), one]),
        "shape_same_obj": lambda: B(losses, grad_tensors=[one, one, lib.ones(2, dtype=dt)]),
        "shape_vectors": lambda: B(outs, [lib.ones(8, 1, dtype=dt), lib.ones(8, 3, dtype=dt),
                                          lib.ones(8, 2, dtype=dt)]),
        "shape_broadcast_err": lambda: B([outs[1], outs[0]], [lib.ones(8, 3, dtype=dt),
                                                              lib.ones(8, 4, dtype=dt)]),
        "shape_grad_api": lambda: G(losses, w0, [one, lib.ones(3, dtype=dt), one]),
        # zip first, then the count
        "count_short": lambda: B(losses, grad_tensors=[one, one]),
        "count_short_shape": lambda: B(losses, grad_tensors=[lib.ones(3, dtype=dt)]),
        "count_long": lambda: B(losses[:1], grad_tensors=[one, "x"], retain_graph=True),
        "tensor_for_list": lambda: B(losses[:2], grad_tensors=lib.ones(2, dtype=dt)),
        "noreq_after_count": lambda: B([losses[0].detach(), losses[1]], grad_tensors=[one]),
        "input_order": lambda: G(losses[0], [x, 1.0], retain_graph=True),
        "batched_float": lambda: G(losses[0], w0, grad_outputs=[1.0], is_grads_batched=True),
        "batched_shape": lambda: G([outs[1], outs[1]], w0, [lib.ones(2, 8, 3, dtype=dt),
                                                            lib.ones(2, 3, 8, dtype=dt)],
                                   is_grads_batched=True),
        "batched_count": lambda: G(losses, w0, grad_outputs=[lib.ones(2, dtype=dt)],
                                   is_grads_batched=True),
        "batched_output": lambda: G([losses[0], 1.0], w0, grad_outputs=[lib.ones(2, dtype=dt),
                                                                         None],
                                    is_grads_batched=True),
    }
    for name, fn in cases.items():
        rec.err(name, fn)
    rec("grad_w0", w0.grad)


def p_pcgrad_vmap(lib, dt, rec):
    """A vectorised PCGrad: each task's projection against a fixed order of the others by
    torch.where, mapped over tasks with vmap, and by einsum over all pairs at once."""
    model = _net(lib, dt, seed=98)  # conflicting tasks in float64 and in float32
    x, ys = _data(lib, dt, seed=99)
    shared = _shared(model)
    _, outs = model(x)
    G = lib.stack([_flat_grads(lib, li, shared) for li in _task_losses(lib, outs, ys)])
    sq = (G * G).sum(1)

    def project(gi, i):
        for j in range(G.shape[0]):
            dot = (gi * G[j]).sum()
            keep = (dot >= 0) | (i == j)
            gi = lib.where(keep, gi, gi - dot / sq[j] * G[j])
        return gi

    out = lib.func.vmap(project)(G, lib.arange(3))
    rec("vmap", out)
    loop = lib.stack([project(G[i], lib.tensor(i)) for i in range(3)])
    rec("diff", (out - loop).abs().max())
    dots = lib.einsum("ip,jp->ij", G, G)
    coef = lib.where(dots < 0, dots / sq[None, :], lib.zeros_like(dots)).fill_diagonal_(0)
    rec("coef", coef)
    rec("one_shot", G - coef @ G)
    rec("conflicts", (dots < 0).triu(1).nonzero())


def p_warnings(lib, dt, rec):
    """Warnings multi-task code runs into: a regression target missing its trailing dim, task
    weights built by tensor() from tensors, .grad of the shared features, only_inputs."""
    model = _net(lib, dt, seed=96)
    x, (y_reg, _, _) = _data(lib, dt, seed=97)
    F = lib.nn.functional
    z, outs = model(x)
    loss = rec.warns("mse_target", lambda: F.mse_loss(outs[0], y_reg.squeeze(1)))
    rec("mse", loss)
    rec.warns("l1_target", lambda: F.smooth_l1_loss(outs[0], y_reg.squeeze(1)))
    losses = [F.mse_loss(outs[0], y_reg), outs[1].logsumexp(1).mean()]
    w = rec.warns("tensor_of_tensors", lambda: lib.tensor([li.detach() for li in losses]))
    rec("w", w)
    w2 = rec.warns("tensor_copy", lambda: lib.tensor(w))
    rec("w2", w2)
    sum(losses).backward(retain_graph=True)
    rec.warns("nonleaf_grad", lambda: z.grad)
    rec.warns("only_inputs", lambda: lib.autograd.grad(losses[0], z, only_inputs=False,
                                                       retain_graph=True))
    rec.warns("softmax_dim", lambda: F.softmax(lib.stack(losses).detach()))


def p_vmap_heads(lib, dt, rec):
    """T identical task heads run as one by stack_module_state + functional_call under vmap,
    their per-task losses and gradients checked against the loop."""
    lib.manual_seed(100)
    heads = [lib.nn.Sequential(lib.nn.Linear(6, 4), lib.nn.GELU(), lib.nn.Linear(4, 1)).to(dt)
             for _ in range(3)]
    model = _net(lib, dt, seed=101)
    g = _gen(lib, 102)
    x = lib.randn(8, 5, generator=g, dtype=dt)
    targets = lib.randn(3, 8, 1, generator=g, dtype=dt)
    params, buffers = lib.func.stack_module_state(heads)
    rec("keys", str(sorted(params)))
    rec("stacked", params["0.weight"])
    base = heads[0]

    def run_head(p, b, z):
        return lib.func.functional_call(base, (p, b), (z,))

    z, _ = model(x)
    out = lib.func.vmap(run_head, in_dims=(0, 0, None))(params, buffers, z)
    rec("out", out)
    loop = lib.stack([h(z) for h in heads])
    rec("diff", (out - loop).abs().max())
    per_task = ((out - targets) ** 2).mean(dim=(1, 2))
    rec("per_task", per_task)
    grads = lib.autograd.grad(per_task.sum(), [params["0.weight"], model.trunk[0].weight])
    rec("g_heads", grads[0])
    rec("g_trunk", grads[1])
    rec("req", str({k: v.requires_grad for k, v in sorted(params.items())}))


def p_hook_api(lib, dt, rec):
    """The hook and node surface gradient-surgery code touches: handles (their reprs without
    the address), node names and edges, node hooks that replace a task's gradient."""
    import re

    model = _net(lib, dt, seed=104)
    x, ys = _data(lib, dt, seed=105)
    z, outs = model(x)
    losses = _task_losses(lib, outs, ys)
    handles = {
        "tensor": z.register_hook(lambda g: g),
        "node": losses[1].grad_fn.register_hook(lambda gi, go: None),
        "node_pre": losses[1].grad_fn.register_prehook(lambda go: None),
        "post_acc": model.trunk[0].weight.register_post_accumulate_grad_hook(lambda p: None),
        "multi": lib.autograd.graph.register_multi_grad_hook(outs, lambda gs: None),
        "module": model.trunk.register_full_backward_hook(lambda m, gi, go: None),
    }
    for k, h in handles.items():
        rec("repr." + k, re.sub(r"0x[0-9a-f]+", "ADDR", repr(h)))
        h.remove()
    node = losses[1].grad_fn
    rec("name", node.name())
    rec("edges", str([(None if f is None else f.name(), i) for f, i in node.next_functions]))
    acc = model.heads[1].weight
    chain = outs[1].grad_fn
    rec("chain", str([None if f is None else f.name() for f, _ in chain.next_functions]))
    rec("acc_var", str(chain.next_functions[2][0].next_functions[0][0].variable is acc))
    # a node hook that scales the gradient leaving the classification head's matmul
    chain.register_hook(lambda gi, go: tuple(None if g is None else 0.1 * g for g in gi))
    losses[1].backward(retain_graph=True)
    rec("scaled", model.trunk[2].weight.grad)
    rec("head", model.heads[1].weight.grad)
