"""Session 26 (helper optres): optimisation-research programs run under torch and minitorch with
the same seeds and compared record by record: optimisers written with torch._foreach_* (Lion,
Adan, Sophia with Hutchinson estimates, Prodigy, schedule-free SGD/AdamW, Muon's Newton-Schulz in
bfloat16, Shampoo by eigh, SAM, Lookahead, gradient centralisation), built-in Adafactor, the
options researchers use on built-in optimisers (differentiable, foreach, tensor lr, capturable,
maximize, amsgrad, decoupled weight decay, None and sparse grads, state and state_dict types,
reprs), line searches and second-order methods (Armijo backtracking, LBFGS strong-Wolfe on
Rosenbrock, CG with torch.func hvp, natural gradient by vmap(grad), K-FAC factors from hooks,
trust region by linalg.solve/lstsq) and hyper-parameter optimisation (hypergradient descent,
unrolled differentiation, implicit differentiation by CG, LR range test, gradient noise scale).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Known and left: torch's fused add_(alpha=)/lerp_ rounding and its float32 sqrt (README.md "Last
bits can differ") grow ~10x per LBFGS iteration on Rosenbrock, so those runs stop at 14
iterations; Adam(capturable=True) on CPU raises the same AssertionError but torch has filled the
parameter's state first (minitorch leaves it empty); sparse gradients do not exist here
(Embedding(sparse=True) gives dense ones, SparseAdam takes dense ones: documented)."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import copy
import math

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


PROGRAMS = [
    "foreach_ops", "lion", "adan", "sophia", "prodigy", "schedule_free", "muon", "shampoo",
    "adafactor", "sam_lookahead", "grad_central", "differentiable", "options", "state_types",
    "armijo", "lbfgs_rosen", "cg_hvp", "natural_grad", "kfac", "trust_region", "hypergrad",
    "unrolled", "implicit", "range_test", "foreach_grad", "muon_builtin",
    "lbfgs_options", "tensor_lr_sd",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True))
    assert_records_match(want, got, 1e-10 if dt == "float64" else 1e-4, rename=True)


# --- helpers ---


def _mlp_data(lib, dt, n=16, d=4, h=6):
    x = lib.randn(n, d, dtype=dt)
    y = lib.randn(n, 1, dtype=dt)
    w1 = (lib.randn(h, d, dtype=dt) * 0.5).requires_grad_()
    w2 = (lib.randn(1, h, dtype=dt) * 0.5).requires_grad_()
    return x, y, [w1, w2]


def _loss(lib, x, y, ps):
    w1, w2 = ps
    return ((lib.tanh(x @ w1.T) @ w2.T - y) ** 2).mean()


def _grads(lib, x, y, ps):
    for p in ps:
        p.grad = None
    loss = _loss(lib, x, y, ps)
    loss.backward()
    return loss


# --- the programs: each takes the library, a dtype and a recorder ---


def p_foreach_ops(lib, dt, rec):
    lib.manual_seed(0)
    a = [lib.randn(3, dtype=dt), lib.randn(2, 2, dtype=dt)]
    b = [lib.rand(3, dtype=dt) + 0.5, lib.rand(2, 2, dtype=dt) + 0.5]
    c = [lib.randn(3, dtype=dt), lib.randn(2, 2, dtype=dt)]
    f = lib
    for i, t in enumerate(f._foreach_add(a, b, alpha=0.5)):
        rec(f"add_alpha{i}", t)
    for i, t in enumerate(f._foreach_add(a, [1.5, -2.0])):
        rec(f"add_list{i}", t)
    for i, t in enumerate(f._foreach_mul(a, lib.tensor(3.0, dtype=dt))):
        rec(f"mul_t{i}", t)
    for i, t in enumerate(f._foreach_addcmul(a, b, c, [0.1, 0.2])):
        rec(f"addcmul_l{i}", t)
    for i, t in enumerate(f._foreach_addcdiv(a, c, b, lib.tensor([0.3, -0.4], dtype=dt))):
        rec(f"addcdiv_t{i}", t)
    for i, t in enumerate(f._foreach_lerp(a, c, 0.25)):
        rec(f"lerp_s{i}", t)
    for i, t in enumerate(f._foreach_lerp(a, c, b)):
        rec(f"lerp_t{i}", t)
    for i, t in enumerate(f._foreach_sqrt(b)):
        rec(f"sqrt{i}", t)
    for i, t in enumerate(f._foreach_maximum(a, c)):
        rec(f"max{i}", t)
    for i, t in enumerate(f._foreach_norm(a)):
        rec(f"norm{i}", t)
    for i, t in enumerate(f._foreach_norm(a, float("inf"))):
        rec(f"norm_inf{i}", t)
    for i, t in enumerate(f._foreach_norm(a, 1)):
        rec(f"norm1_{i}", t)
    for i, t in enumerate(f._foreach_sign(a)):
        rec(f"sign{i}", t)
    for i, t in enumerate(f._foreach_div(a, b)):
        rec(f"div{i}", t)
    for i, t in enumerate(f._foreach_clamp_min(a, 0.1)):
        rec(f"clamp_min{i}", t)
    for i, t in enumerate(f._foreach_sub(a, [0.5, 0.25])):
        rec(f"sub_l{i}", t)
    for i, t in enumerate(f._foreach_pow(b, 2.0)):
        rec(f"pow{i}", t)
    for i, t in enumerate(f._foreach_pow(2.0, b)):
        rec(f"rpow{i}", t)
    d = [t.clone() for t in a]
    f._foreach_mul_(d, [2.0, 3.0])
    f._foreach_add_(d, c, alpha=-1.0)
    f._foreach_addcmul_(d, b, c, value=0.5)
    f._foreach_addcdiv_(d, c, b, value=-0.5)
    f._foreach_lerp_(d, a, 0.9)
    f._foreach_maximum_(d, c)
    f._foreach_clamp_min_(d, -0.2)
    f._foreach_div_(d, 2.0)
    f._foreach_sqrt_(f._foreach_abs(d))
    for i, t in enumerate(d):
        rec(f"chain{i}", t)
    rec.err("len_mismatch", lambda: f._foreach_add(a, [b[0]]))
    rec.err("scalar_len", lambda: f._foreach_add(a, [1.0, 2.0, 3.0]))
    rec.err("empty", lambda: f._foreach_add([], 1.0))
    rec.err("maximum_scalar", lambda: f._foreach_maximum(a, 0.0))
    rec.err("shape_mismatch", lambda: f._foreach_add(a, [c[1], c[0]]))
    rec.err("lerp_len", lambda: f._foreach_lerp(a, [c[0]], 0.5))
    rec.err("addcmul_len", lambda: f._foreach_addcmul(a, b, c, [0.1]))


def p_lion(lib, dt, rec):
    lib.manual_seed(1)
    x, y, ps = _mlp_data(lib, dt)
    m = [lib.zeros_like(p) for p in ps]
    lr, b1, b2, wd = 1e-2, 0.9, 0.99, 0.1
    for step in range(6):
        rec(f"loss{step}", _grads(lib, x, y, ps))
        with lib.no_grad():
            grads = [p.grad for p in ps]
            lib._foreach_mul_(ps, 1 - lr * wd)
            upd = lib._foreach_mul(m, b1)
            lib._foreach_add_(upd, grads, alpha=1 - b1)
            lib._foreach_add_(ps, lib._foreach_sign(upd), alpha=-lr)
            lib._foreach_lerp_(m, grads, 1 - b2)
    for i, p in enumerate(ps):
        rec(f"p{i}", p)
        rec(f"m{i}", m[i])


def p_adan(lib, dt, rec):
    lib.manual_seed(2)
    x, y, ps = _mlp_data(lib, dt)
    b1, b2, b3, lr, wd, eps = 0.02, 0.08, 0.01, 1e-2, 0.02, 1e-8
    m = [lib.zeros_like(p) for p in ps]
    v = [lib.zeros_like(p) for p in ps]
    n = [lib.zeros_like(p) for p in ps]
    prev = None
    for step in range(1, 6):
        rec(f"loss{step}", _grads(lib, x, y, ps))
        with lib.no_grad():
            g = [p.grad.clone() for p in ps]
            diff = (
                lib._foreach_sub(g, prev)
                if prev is not None
                else lib._foreach_zero_([lib.empty_like(t) for t in g])
            )
            lib._foreach_lerp_(m, g, b1)
            lib._foreach_lerp_(v, diff, b2)
            u = lib._foreach_add(g, diff, alpha=1 - b2)
            lib._foreach_mul_(n, 1 - b3)
            lib._foreach_addcmul_(n, u, u, value=b3)
            bc1, bc2, bc3 = 1 - (1 - b1) ** step, 1 - (1 - b2) ** step, 1 - (1 - b3) ** step
            denom = lib._foreach_div(n, bc3)
            lib._foreach_sqrt_(denom)
            lib._foreach_add_(denom, eps)
            upd = lib._foreach_div(m, bc1)
            lib._foreach_add_(upd, lib._foreach_div(v, bc2), alpha=1 - b2)
            lib._foreach_div_(upd, denom)
            lib._foreach_add_(ps, upd, alpha=-lr)
            lib._foreach_div_(ps, 1 + lr * wd)
            prev = g
    for i, p in enumerate(ps):
        rec(f"p{i}", p)
        rec(f"n{i}", n[i])


def p_sophia(lib, dt, rec):
    lib.manual_seed(3)
    x, y, ps = _mlp_data(lib, dt)
    m = [lib.zeros_like(p) for p in ps]
    h = [lib.zeros_like(p) for p in ps]
    lr, b1, b2, rho, eps = 1e-2, 0.9, 0.99, 0.05, 1e-12
    for step in range(6):
        loss = _loss(lib, x, y, ps)
        rec(f"loss{step}", loss)
        grads = lib.autograd.grad(loss, ps, create_graph=True)
        if step % 2 == 0:
            zs = [lib.randint(0, 2, p.shape, dtype=dt) * 2 - 1 for p in ps]
            rec(f"z{step}", zs[0])
            hz = lib.autograd.grad(grads, ps, grad_outputs=zs)
            with lib.no_grad():
                est = lib._foreach_mul(hz, zs)
                lib._foreach_mul_(h, b2)
                lib._foreach_add_(h, est, alpha=1 - b2)
        with lib.no_grad():
            g = [t.detach() for t in grads]
            lib._foreach_lerp_(m, g, 1 - b1)
            denom = lib._foreach_clamp_min(lib._foreach_mul(h, rho * x.shape[0]), eps)
            ratio = lib._foreach_div(lib._foreach_abs(m), denom)
            ratio = [r.clamp(max=1.0) for r in ratio]
            upd = lib._foreach_mul(lib._foreach_sign(m), ratio)
            lib._foreach_add_(ps, upd, alpha=-lr)
    for i, p in enumerate(ps):
        rec(f"p{i}", p)
        rec(f"h{i}", h[i])


def p_prodigy(lib, dt, rec):
    lib.manual_seed(4)
    x, y, ps = _mlp_data(lib, dt)
    d, d0, lr, b1, b2, eps = 1e-6, 1e-6, 1.0, 0.9, 0.999, 1e-8
    x0 = [p.detach().clone() for p in ps]
    s = [lib.zeros_like(p) for p in ps]
    m = [lib.zeros_like(p) for p in ps]
    v = [lib.zeros_like(p) for p in ps]
    num = 0.0
    for step in range(6):
        rec(f"loss{step}", _grads(lib, x, y, ps))
        with lib.no_grad():
            g = [p.grad for p in ps]
            dlr = d * lr
            lib._foreach_lerp_(m, lib._foreach_mul(g, d), 1 - b1)
            lib._foreach_mul_(v, b2)
            lib._foreach_addcmul_(v, g, g, value=(1 - b2) * d * d)
            diffs = lib._foreach_sub(x0, ps)
            num = math.sqrt(b2) * num + (1 - math.sqrt(b2)) * dlr * sum(
                float((gi * di).sum()) for gi, di in zip(g, diffs, strict=True)
            )
            lib._foreach_mul_(s, math.sqrt(b2))
            lib._foreach_add_(s, g, alpha=(1 - math.sqrt(b2)) * dlr)
            den = sum(float(t.abs().sum()) for t in s)
            d = max(d, num / den) if den > 0 else d
            rec(f"d{step}", lib.tensor(d, dtype=lib.float64))
            denom = lib._foreach_add(lib._foreach_sqrt(v), d * eps)
            lib._foreach_addcdiv_(ps, m, denom, value=-dlr)
    rec("d0", lib.tensor(d0))
    for i, p in enumerate(ps):
        rec(f"p{i}", p)


def p_schedule_free(lib, dt, rec):
    lib.manual_seed(5)
    x, y, ps = _mlp_data(lib, dt)
    # schedule-free SGD: gradient at y = (1-beta) z + beta x; x the running average of z
    z = [p.detach().clone() for p in ps]
    xs = [p.detach().clone() for p in ps]
    lr, beta = 0.1, 0.9
    for t in range(1, 6):
        with lib.no_grad():
            for p, zi, xi in zip(ps, z, xs, strict=True):
                p.copy_(zi.lerp(xi, beta))
        rec(f"sgd_loss{t}", _grads(lib, x, y, ps))
        with lib.no_grad():
            lib._foreach_add_(z, [p.grad for p in ps], alpha=-lr)
            lib._foreach_lerp_(xs, z, 1.0 / (t + 1))
    for i, xi in enumerate(xs):
        rec(f"sgd_x{i}", xi)
    # schedule-free AdamW with warmup
    z = [p.detach().clone() for p in ps]
    xs = [p.detach().clone() for p in ps]
    v = [lib.zeros_like(p) for p in ps]
    lr, b1, b2, wd, eps, warm, wsum = 1e-2, 0.9, 0.999, 0.01, 1e-8, 3, 0.0
    for t in range(1, 7):
        with lib.no_grad():
            lib._foreach_copy_(ps, lib._foreach_lerp(z, xs, b1))
        rec(f"adamw_loss{t}", _grads(lib, x, y, ps))
        with lib.no_grad():
            g = [p.grad for p in ps]
            lib._foreach_mul_(v, b2)
            lib._foreach_addcmul_(v, g, g, value=1 - b2)
            sched = min(1.0, t / warm)
            lr_t = lr * sched * math.sqrt(1 - b2**t)
            wsum += lr_t**2
            ck = lr_t**2 / wsum
            denom = lib._foreach_add(lib._foreach_sqrt(v), eps)
            upd = lib._foreach_div(g, denom)
            lib._foreach_add_(upd, ps, alpha=wd)
            lib._foreach_add_(z, upd, alpha=-lr_t)
            lib._foreach_lerp_(xs, z, ck)
    for i, xi in enumerate(xs):
        rec(f"adamw_x{i}", xi)
        rec(f"adamw_z{i}", z[i])


def _newton_schulz(lib, g, steps=5):
    a, b, c = 3.4445, -4.7750, 2.0315
    x = g.bfloat16()
    tr = g.size(0) > g.size(1)
    if tr:
        x = x.T
    x = x / (x.norm() + 1e-7)
    for _ in range(steps):
        s = x @ x.T
        bm = b * s + c * s @ s
        x = a * x + bm @ x
    if tr:
        x = x.T
    return x


def p_muon(lib, dt, rec):
    lib.manual_seed(6)
    w = lib.randn(8, 5, dtype=dt, requires_grad=True)
    x = lib.randn(12, 5, dtype=dt)
    y = lib.randn(12, 8, dtype=dt)
    buf = lib.zeros_like(w)
    for step in range(4):
        w.grad = None
        loss = ((x @ w.T - y) ** 2).mean()
        loss.backward()
        rec(f"loss{step}", loss)
        with lib.no_grad():
            buf.lerp_(w.grad, 1 - 0.95)
            g = w.grad.lerp(buf, 0.95)
            o = _newton_schulz(lib, g)
            rec(f"o{step}.dtype", str(o.dtype).split(".")[-1])
            sv = lib.linalg.svdvals(o.float())
            rec(f"sv{step}", lib.tensor(float(sv.max() - sv.min()) < 0.8))
            scale = max(1, w.size(0) / w.size(1)) ** 0.5
            w.add_(o.to(w.dtype), alpha=-0.02 * scale)
    rec("w_close", lib.tensor(w.detach().abs().sum().item() > 0))


def _mat_root(lib, m, p, eps):
    vals, vecs = lib.linalg.eigh(m)
    vals = vals.clamp_min(eps)
    return vecs @ lib.diag(vals ** (-1.0 / p)) @ vecs.T


def p_shampoo(lib, dt, rec):
    lib.manual_seed(7)
    w = (lib.randn(4, 3, dtype=dt) * 0.5).requires_grad_()
    x = lib.randn(20, 3, dtype=dt)
    y = lib.randn(20, 4, dtype=dt)
    left = lib.eye(4, dtype=dt) * 1e-4
    right = lib.eye(3, dtype=dt) * 1e-4
    for step in range(5):
        w.grad = None
        loss = ((x @ w.T - y) ** 2).mean()
        loss.backward()
        rec(f"loss{step}", loss)
        with lib.no_grad():
            g = w.grad
            left.add_(g @ g.T)
            right.add_(g.T @ g)
            lr_ = _mat_root(lib, left, 4, 1e-12)
            rr = _mat_root(lib, right, 4, 1e-12)
            pre = lr_ @ g @ rr
            rec(f"pre{step}", pre)
            w.sub_(0.1 * pre)
    rec("w", w)
    vals = lib.linalg.eigvalsh(left)
    rec("left_eig", vals)


def p_adafactor(lib, dt, rec):
    lib.manual_seed(8)
    x, y, ps = _mlp_data(lib, dt)
    b = lib.zeros(6, dtype=dt, requires_grad=True)
    ps = [*ps, b]
    opt = lib.optim.Adafactor(ps, lr=1e-2, weight_decay=0.01)
    rec("repr", repr(opt))
    rec("defaults", str(sorted(opt.defaults.items())))
    for step in range(4):
        opt.zero_grad()
        loss = _loss(lib, x, y, ps[:2]) + (ps[2] ** 2).sum()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    for i, p in enumerate(ps):
        rec(f"p{i}", p)
    sd = opt.state_dict()
    for k, st in sd["state"].items():
        rec(f"state{k}.keys", str(sorted(st)))
        for n, v in sorted(st.items()):
            rec(f"state{k}.{n}", v if hasattr(v, "shape") else repr(v))
    rec("groups", str(sorted(sd["param_groups"][0].items())))
    opt2 = lib.optim.Adafactor(ps, lr=1e-2, maximize=True, foreach=True)
    opt2.load_state_dict(sd)
    rec("loaded_maximize", str(opt2.param_groups[0]["maximize"]))
    rec.err("bad_lr", lambda: lib.optim.Adafactor(ps, lr=-1.0))
    rec.err("bad_beta2", lambda: lib.optim.Adafactor(ps, beta2_decay=0.5))
    rec.err("bad_eps", lambda: lib.optim.Adafactor(ps, eps=(-1.0, 1e-3)))


def p_sam_lookahead(lib, dt, rec):
    lib.manual_seed(9)
    x, y, ps = _mlp_data(lib, dt)
    base = lib.optim.SGD(ps, lr=0.1, momentum=0.9)
    rho = 0.05
    slow = [p.detach().clone() for p in ps]
    for step in range(6):

        def closure():
            base.zero_grad()
            loss = _loss(lib, x, y, ps)
            loss.backward()
            return loss

        loss = closure()
        rec(f"loss{step}", loss)
        with lib.no_grad():
            gn = lib.norm(lib.stack([p.grad.norm(2) for p in ps]), 2)
            e_w = []
            for p in ps:
                e = p.grad * (rho / (gn + 1e-12))
                p.add_(e)
                e_w.append(e)
        loss2 = closure()
        rec(f"loss_perturbed{step}", loss2)
        with lib.no_grad():
            for p, e in zip(ps, e_w, strict=True):
                p.sub_(e)
        base.step()
        if step % 3 == 2:  # Lookahead k=3 alpha=0.5
            with lib.no_grad():
                for p, s in zip(ps, slow, strict=True):
                    s.add_(p - s, alpha=0.5)
                    p.copy_(s)
    sd = base.state_dict()
    rec("sd_state_keys", str({k: sorted(v) for k, v in sd["state"].items()}))
    rec("sd_groups", str(sd["param_groups"]))
    la_sd = {"slow": slow, "base": sd, "k": 3, "alpha": 0.5}
    rec("buf0", la_sd["base"]["state"][0]["momentum_buffer"])
    for i, p in enumerate(ps):
        rec(f"p{i}", p)


def p_grad_central(lib, dt, rec):
    lib.manual_seed(10)
    model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2)).to(dt)
    x = lib.randn(8, 4, dtype=dt)
    t = lib.randint(0, 2, (8,))
    opt = lib.optim.AdamW(model.parameters(), lr=1e-2, foreach=False)
    for step in range(4):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), t)
        loss.backward()
        for p in model.parameters():
            if p.grad.dim() > 1:
                p.grad.sub_(p.grad.mean(dim=tuple(range(1, p.grad.dim())), keepdim=True))
        rec(f"gc_mean{step}", model[0].weight.grad.mean(dim=1))
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("m", model)


def p_differentiable(lib, dt, rec):
    lib.manual_seed(11)
    x, y, ps0 = _mlp_data(lib, dt)

    def run(name, kw, steps):
        lr = lib.tensor(0.05, dtype=dt, requires_grad=True)
        ps = [p.detach().clone().requires_grad_() for p in ps0]
        ws = [p.clone() for p in ps]  # non-leaf copies the optimiser updates
        opt = getattr(lib.optim, name)(ws, lr=lr, differentiable=True, **kw)
        for _ in range(steps):
            loss = _loss(lib, x, y, [w.clone() for w in ws])
            gs = lib.autograd.grad(loss, ws, create_graph=True)
            for w, g in zip(ws, gs, strict=True):
                w.grad = g
            opt.step()
        final = _loss(lib, x, y, ws)
        rec(f"{name}{steps}.final", final)
        rec(f"{name}{steps}.step_type", repr(opt.state[ws[0]].get("step")))
        (hg,) = lib.autograd.grad(final, [lr])
        rec(f"{name}{steps}.dlr", hg)

    for name, kw in [
        ("SGD", {"momentum": 0.9}),
        ("SGD", {"weight_decay": 0.1}),
        ("Adam", {}),
        ("AdamW", {"weight_decay": 0.1}),
        ("RMSprop", {"momentum": 0.5}),
        ("Adagrad", {}),
        ("NAdam", {}),
        ("Adamax", {}),
    ]:
        for steps in (1, 3):
            rec.err(f"{name}{steps}", lambda: run(name, kw, steps))
    rec.err(
        "leaf_inplace",
        lambda: (
            lib.optim.SGD([ps0[0]], lr=0.1, differentiable=True).step()
            if (ps0[0].__setattr__("grad", lib.ones_like(ps0[0])) is None)
            else None
        ),
    )


def p_options(lib, dt, rec):
    lib.manual_seed(12)
    x, y, ps0 = _mlp_data(lib, dt)
    cases = [
        ("Adam", {"foreach": True}),
        ("Adam", {"foreach": False, "amsgrad": True, "maximize": True}),
        ("Adam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
        ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
        ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
        ("AdamW", {"lr": None, "amsgrad": True}),
        ("SGD", {"lr": None, "momentum": 0.9, "nesterov": True, "foreach": True}),
        ("Adamax", {"maximize": True}),
    ]
    for j, (name, kw) in enumerate(cases):
        ps = [p.detach().clone().requires_grad_() for p in ps0]
        extra = lib.zeros(2, dtype=dt, requires_grad=True)  # never gets a gradient
        kw = dict(kw)
        if "lr" in kw:
            kw["lr"] = lib.tensor(0.01)
        opt = getattr(lib.optim, name)([*ps, extra], **kw)
        for _ in range(3):
            _grads(lib, x, y, ps)
            opt.step()
        for i, p in enumerate(ps):
            rec(f"{j}{name}.p{i}", p)
        rec(f"{j}{name}.state_len", lib.tensor(len(opt.state)))
        rec(f"{j}{name}.keys", str(sorted(opt.state[ps[0]])))
        rec(f"{j}{name}.repr", repr(opt))
    # param groups with different betas
    ps = [p.detach().clone().requires_grad_() for p in ps0]
    opt = lib.optim.Adam([{"params": [ps[0]], "betas": (0.5, 0.9)}, {"params": [ps[1]]}], lr=0.01)
    for _ in range(3):
        _grads(lib, x, y, ps)
        opt.step()
    rec("groups.p0", ps[0])
    rec("groups.p1", ps[1])
    rec("groups.repr", repr(opt))
    # capturable on CPU
    ps = [p.detach().clone().requires_grad_() for p in ps0]
    opt = rec.err("capt_ctor", lambda: lib.optim.Adam(ps, capturable=True))
    if opt is not None:
        _grads(lib, x, y, ps)
        rec.err("capt_step", opt.step)
    rec.err("bad_betas", lambda: lib.optim.Adam(ps, betas=(1.0, 0.9)))
    rec.err("tensor_lr_foreach", lambda: lib.optim.Adam(ps, lr=lib.tensor(0.1), foreach=True))
    rec.err("fused_cpu", lambda: lib.optim.Adam(ps, fused=True, foreach=True))
    rec.err("dup_params", lambda: lib.optim.SGD([ps[0], ps[0]], lr=0.1))


def p_state_types(lib, dt, rec):
    lib.manual_seed(13)
    x, y, ps0 = _mlp_data(lib, dt)
    for name in ["SGD", "Adam", "AdamW", "NAdam", "RAdam", "Adagrad", "RMSprop", "Adadelta",
                 "Adamax", "ASGD", "Rprop"]:  # fmt: skip
        ps = [p.detach().clone().requires_grad_() for p in ps0]
        kw = {"lr": 0.01, "momentum": 0.9} if name == "SGD" else {}
        opt = getattr(lib.optim, name)(ps, **kw)
        _grads(lib, x, y, ps)
        opt.step()
        st = opt.state[ps[0]]
        for k in sorted(st):
            v = st[k]
            if hasattr(v, "dtype"):
                rec(f"{name}.{k}", f"{v.dtype} {tuple(v.shape)} {v.requires_grad}")
            else:
                rec(f"{name}.{k}", repr(v))
        if "step" in st:
            rec(f"{name}.step_repr", repr(st["step"]))
        sd = opt.state_dict()
        rec(f"{name}.sd_step", repr(sd["state"][0].get("step")))
        rec(f"{name}.sd_group_keys", str(sorted(sd["param_groups"][0])))
        opt2 = getattr(lib.optim, name)([p.detach().clone() for p in ps], **kw)
        opt2.load_state_dict(copy.deepcopy(sd))
        rec(f"{name}.loaded_step", repr(next(iter(opt2.state.values())).get("step")))


def p_armijo(lib, dt, rec):
    lib.manual_seed(14)
    x, y, ps = _mlp_data(lib, dt)
    evals = 0

    def closure():
        nonlocal evals
        evals += 1
        with lib.no_grad():
            return _loss(lib, x, y, ps)

    for it in range(5):
        f0 = _grads(lib, x, y, ps).detach()
        g = [p.grad.clone() for p in ps]
        gg = sum((t * t).sum() for t in g)
        t = 1.0
        with lib.no_grad():
            for p, gi in zip(ps, g, strict=True):
                p.sub_(t * gi)
        while closure() > f0 - 1e-4 * t * gg:
            with lib.no_grad():
                for p, gi in zip(ps, g, strict=True):
                    p.add_(0.5 * t * gi)
            t *= 0.5
        rec(f"t{it}", lib.tensor(t))
        rec(f"f{it}", f0)
    rec("evals", lib.tensor(evals))
    for i, p in enumerate(ps):
        rec(f"p{i}", p)


def p_lbfgs_rosen(lib, dt, rec):
    # (14 iterations: on Rosenbrock the ulp-level rounding differences README.md names grow
    # ~10x per iteration)
    for hist, ls in [(10, "strong_wolfe"), (3, "strong_wolfe"), (10, None)]:
        xy = lib.tensor([-1.5, 2.0], dtype=dt, requires_grad=True)
        opt = lib.optim.LBFGS([xy], lr=1, max_iter=7, history_size=hist, line_search_fn=ls)
        calls = 0

        def closure():
            nonlocal calls
            calls += 1
            opt.zero_grad()
            f = (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2
            f.backward()
            return f

        tag = f"{hist}{ls}"
        for outer in range(2):
            out = opt.step(closure)
            rec(f"{tag}.out{outer}", out)
            rec(f"{tag}.xy{outer}", xy)
        st = opt.state_dict()["state"][0]
        rec(f"{tag}.func_evals", repr(st["func_evals"]))
        rec(f"{tag}.n_iter", repr(st["n_iter"]))
        rec(f"{tag}.calls", lib.tensor(calls))
        rec(f"{tag}.keys", str(sorted(st)))
        rec(f"{tag}.t", lib.tensor(float(st["t"])))
        rec(f"{tag}.hist", lib.tensor(len(st["old_dirs"])))
    rec.err("bad_ls", lambda: lib.optim.LBFGS([xy], line_search_fn="armijo"))
    rec.err("two_groups", lambda: lib.optim.LBFGS([{"params": [xy]}, {"params": []}]))


def p_cg_hvp(lib, dt, rec):
    lib.manual_seed(15)
    x, y, ps = _mlp_data(lib, dt)
    params = {"w1": ps[0].detach(), "w2": ps[1].detach()}

    def f(pr):
        return _loss(lib, x, y, [pr["w1"], pr["w2"]]) + 0.5 * sum((v**2).sum() for v in pr.values())

    g = lib.func.grad(f)(params)

    def hvp(v):
        return lib.func.jvp(lib.func.grad(f), (params,), (v,))[1]

    b = {k: -t for k, t in g.items()}
    xk = {k: lib.zeros_like(t) for k, t in b.items()}
    r = dict(b)
    p = dict(r)
    rs = sum((t * t).sum() for t in r.values())
    for it in range(5):
        hp = hvp(p)
        php = sum((p[k] * hp[k]).sum() for k in p)
        alpha = rs / php
        xk = {k: xk[k] + alpha * p[k] for k in xk}
        r = {k: r[k] - alpha * hp[k] for k in r}
        rs_new = sum((t * t).sum() for t in r.values())
        rec(f"res{it}", rs_new.sqrt())
        p = {k: r[k] + (rs_new / rs) * p[k] for k in p}
        rs = rs_new
    for k, v in xk.items():
        rec(f"x.{k}", v)
    _, vjp_fn = lib.func.vjp(lib.func.grad(f), params)
    rec("vjp_hvp", vjp_fn(xk)[0]["w1"])


def p_natural_grad(lib, dt, rec):
    lib.manual_seed(16)
    w = lib.randn(3, dtype=dt) * 0.1
    x = lib.randn(24, 3, dtype=dt)
    t = (lib.rand(24, dtype=dt) > 0.5).to(dt)

    def nll(w, xi, ti):
        return lib.nn.functional.binary_cross_entropy_with_logits(xi @ w, ti)

    for it in range(4):
        per = lib.func.vmap(lib.func.grad(nll), in_dims=(None, 0, 0))(w, x, t)
        fisher = per.T @ per / x.shape[0] + 1e-3 * lib.eye(3, dtype=dt)
        g = per.mean(0)
        step = lib.linalg.solve(fisher, g)
        rec(f"per{it}", per[:3])
        rec(f"step{it}", step)
        w = w - 0.5 * step
        rec(f"nll{it}", nll(w, x, t))
    chol = lib.linalg.cholesky(fisher)
    rec("chol_step", lib.cholesky_solve(g[:, None], chol)[:, 0])


def p_kfac(lib, dt, rec):
    lib.manual_seed(17)
    lin = lib.nn.Linear(4, 3).to(dt)
    x = lib.randn(10, 4, dtype=dt)
    t = lib.randint(0, 3, (10,))
    acts, gouts = {}, {}
    h1 = lin.register_forward_hook(lambda m, i, o: acts.__setitem__("a", i[0].detach()))
    h2 = lin.register_full_backward_hook(lambda m, gi, go: gouts.__setitem__("g", go[0].detach()))
    damp = 1e-2
    for it in range(3):
        lin.zero_grad()
        loss = lib.nn.functional.cross_entropy(lin(x), t)
        loss.backward()
        a = lib.cat([acts["a"], lib.ones(10, 1, dtype=dt)], 1)
        g = gouts["g"] * x.shape[0]
        A = a.T @ a / 10 + damp * lib.eye(5, dtype=dt)
        G = g.T @ g / 10 + damp * lib.eye(3, dtype=dt)
        grad = lib.cat([lin.weight.grad, lin.bias.grad[:, None]], 1)
        nat = lib.linalg.solve(G, grad) @ lib.linalg.inv(A)
        rec(f"A{it}", A)
        rec(f"G{it}", G)
        rec(f"loss{it}", loss)
        with lib.no_grad():
            lin.weight.sub_(0.1 * nat[:, :4])
            lin.bias.sub_(0.1 * nat[:, 4])
    h1.remove()
    h2.remove()
    rec.params("lin", lin)


def p_trust_region(lib, dt, rec):
    lib.manual_seed(18)
    xy = lib.tensor([-1.2, 1.0], dtype=dt)

    def rosen(v):
        return (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2

    radius = 0.5
    for it in range(8):
        f = rosen(xy)
        g = lib.func.grad(rosen)(xy)
        H = lib.func.hessian(rosen)(xy)
        p = -lib.linalg.solve(H, g)
        if p.norm() > radius:
            p = p * (radius / p.norm())
        pred = -(g @ p + 0.5 * p @ H @ p)
        actual = f - rosen(xy + p)
        rho = actual / pred
        rec(f"rho{it}", rho)
        if rho < 0.25:
            radius *= 0.25
        elif rho > 0.75:
            radius = min(2 * radius, 2.0)
        if rho > 0.1:
            xy = xy + p
        rec(f"xy{it}", xy)
    A = lib.randn(6, 3, dtype=dt)
    b = lib.randn(6, dtype=dt)
    sol = lib.linalg.lstsq(A, b[:, None])
    rec("lstsq", sol.solution)
    rec("lstsq_res", sol.residuals)
    rec("lstsq_rank", sol.rank)
    rec("lstsq_driver", repr(lib.linalg.lstsq(A, b[:, None], driver="gelsd").rank))


def p_hypergrad(lib, dt, rec):
    lib.manual_seed(19)
    x, y, ps = _mlp_data(lib, dt)
    lr, beta = 0.05, 1e-3
    prev = None
    for step in range(6):
        loss = _grads(lib, x, y, ps)
        g = [p.grad.clone() for p in ps]
        if prev is not None:
            h = sum((a * b).sum() for a, b in zip(g, prev, strict=True))
            lr = lr + beta * float(h)
        rec(f"lr{step}", lib.tensor(lr, dtype=lib.float64))
        rec(f"loss{step}", loss)
        with lib.no_grad():
            lib._foreach_add_(ps, g, alpha=-lr)
        prev = g
    # the same with a tensor lr through an SGD optimiser
    lrt = lib.tensor(0.05, dtype=dt)
    opt = lib.optim.SGD(ps, lr=lrt)
    _grads(lib, x, y, ps)
    opt.step()
    rec("opt_lr", repr(opt.param_groups[0]["lr"]))
    for i, p in enumerate(ps):
        rec(f"p{i}", p)


def p_unrolled(lib, dt, rec):
    lib.manual_seed(20)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1)).to(dt)
    xtr, ytr = lib.randn(8, 3, dtype=dt), lib.randn(8, 1, dtype=dt)
    xva, yva = lib.randn(8, 3, dtype=dt), lib.randn(8, 1, dtype=dt)
    log_lr = lib.tensor(math.log(0.1), dtype=dt, requires_grad=True)
    wd = lib.tensor(1e-3, dtype=dt, requires_grad=True)
    meta = lib.optim.Adam([log_lr, wd], lr=0.05)
    for outer in range(3):
        params = dict(model.named_parameters())
        for _ in range(5):
            out = lib.func.functional_call(model, params, (xtr,))
            loss = ((out - ytr) ** 2).mean() + wd * sum((p**2).sum() for p in params.values())
            gs = lib.autograd.grad(loss, list(params.values()), create_graph=True)
            params = {k: p - log_lr.exp() * g for (k, p), g in zip(params.items(), gs, strict=True)}
        val = ((lib.func.functional_call(model, params, (xva,)) - yva) ** 2).mean()
        meta.zero_grad()
        val.backward()
        rec(f"val{outer}", val)
        rec(f"dlog_lr{outer}", log_lr.grad)
        rec(f"dwd{outer}", wd.grad)
        meta.step()
    rec("log_lr", log_lr)
    rec("model_grad_w", model[0].weight.grad)


def p_implicit(lib, dt, rec):
    lib.manual_seed(21)
    x = lib.randn(20, 3, dtype=dt)
    y = x @ lib.tensor([1.0, -2.0, 0.5], dtype=dt) + 0.1 * lib.randn(20, dtype=dt)
    xv = lib.randn(10, 3, dtype=dt)
    yv = xv @ lib.tensor([1.0, -2.0, 0.5], dtype=dt)
    log_lam = lib.tensor(0.0, dtype=dt, requires_grad=True)

    def inner(w, lam):
        return ((x @ w - y) ** 2).mean() + lam * (w**2).sum()

    for it in range(3):
        w = lib.zeros(3, dtype=dt, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        for _ in range(60):
            opt.zero_grad()
            inner(w, log_lam.exp().detach()).backward()
            opt.step()
        w = w.detach().requires_grad_()
        val = ((xv @ w - yv) ** 2).mean()
        (vg,) = lib.autograd.grad(val, w)
        lam = log_lam.exp()
        (gw,) = lib.autograd.grad(inner(w, lam), w, create_graph=True)
        # solve H q = vg by CG with Hessian-vector products
        q = lib.zeros_like(vg)
        r = vg.clone()
        p = r.clone()
        for _ in range(3):
            (hp,) = lib.autograd.grad(gw, w, grad_outputs=p, retain_graph=True)
            a = (r @ r) / (p @ hp)
            q = q + a * p
            r_new = r - a * hp
            p = r_new + (r_new @ r_new) / (r @ r) * p
            r = r_new
        (hyper,) = lib.autograd.grad(gw, log_lam, grad_outputs=-q)
        rec(f"val{it}", val)
        rec(f"w{it}", w)
        rec(f"hyper{it}", hyper)
        with lib.no_grad():
            log_lam -= 0.5 * hyper


def p_range_test(lib, dt, rec):
    lib.manual_seed(22)
    model = lib.nn.Linear(5, 1).to(dt)
    x = lib.randn(64, 5, dtype=dt)
    y = x @ lib.randn(5, 1, dtype=dt)
    opt = lib.optim.SGD(model.parameters(), lr=1e-4)
    sched = lib.optim.lr_scheduler.LambdaLR(opt, lambda i: 1.6**i)
    lrs, losses, smooth = [], [], 0.0
    for i in range(12):
        idx = lib.randint(0, 64, (8,))
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x[idx]), y[idx])
        loss.backward()
        opt.step()
        smooth = 0.9 * smooth + 0.1 * loss.item()
        lrs.append(sched.get_last_lr()[0])
        losses.append(smooth / (1 - 0.9 ** (i + 1)))
        sched.step()
    rec("lrs", lrs)
    rec("losses", losses)

    # gradient noise scale: |G|^2 and tr(Sigma) from small/big batch gradient norms
    def gnorm2(bs):
        model.zero_grad()
        idx = lib.randperm(64)[:bs]
        lib.nn.functional.mse_loss(model(x[idx]), y[idx]).backward()
        return sum((p.grad**2).sum() for p in model.parameters())

    small, big = gnorm2(4), gnorm2(32)
    g2 = (32 * big - 4 * small) / (32 - 4)
    s = (small - big) / (1 / 4 - 1 / 32)
    rec("g2", g2)
    rec("trace", s)
    rec("b_noise", s / g2)


def p_foreach_grad(lib, dt, rec):
    lib.manual_seed(23)
    a = [lib.randn(3, dtype=dt, requires_grad=True), lib.randn(2, 2, dtype=dt, requires_grad=True)]
    b = [lib.rand(3, dtype=dt) + 0.5, lib.rand(2, 2, dtype=dt) + 0.5]
    outs = lib._foreach_addcdiv(lib._foreach_mul(a, 2.0), b, lib._foreach_sqrt(b), 0.5)
    outs = lib._foreach_lerp(outs, a, 0.3)
    norms = lib._foreach_norm(outs)
    total = sum(n**2 for n in norms) + sum(lib._foreach_exp(a)[i].sum() for i in range(2))
    gs = lib.autograd.grad(total, a, create_graph=True)
    for i, g in enumerate(gs):
        rec(f"g{i}", g)
    gg = lib.autograd.grad(sum(g.sum() for g in gs), a)
    for i, g in enumerate(gg):
        rec(f"gg{i}", g)
    n = lib._foreach_norm(a, 2, dtype=lib.float64)
    rec("norm_dtype", n[0])
    m = lib._foreach_max([t.detach() for t in a])
    rec("max", lib.stack(m))
    ints = [lib.arange(3), lib.arange(4)]
    for i, t in enumerate(lib._foreach_sqrt(ints)):
        rec(f"int_sqrt{i}", t)
    for i, t in enumerate(lib._foreach_mul(ints, 0.5)):
        rec(f"int_mul{i}", t)
    for i, t in enumerate(lib._foreach_div(ints, 2)):
        rec(f"int_div{i}", t)
    rec.err("int_add_", lambda: lib._foreach_add_(ints, 0.5))
    rec.err("leaf_inplace", lambda: lib._foreach_add_(a, 1.0))
    with lib.no_grad():
        lib._foreach_mul_(a, [lib.tensor(2.0, dtype=dt), lib.tensor(0.5, dtype=dt)])
    rec("a0", a[0])
    rec.err("mixed_dtype", lambda: lib._foreach_add([a[0].detach()], [lib.ones(3)]))
    rec.err("copy_len", lambda: lib._foreach_copy_([lib.zeros(3)], [lib.ones(3), lib.ones(2)]))


def p_muon_builtin(lib, dt, rec):
    lib.manual_seed(24)
    w = lib.randn(6, 4, dtype=dt, requires_grad=True)
    x = lib.randn(10, 4, dtype=dt)
    y = lib.randn(10, 6, dtype=dt)
    opt = lib.optim.Muon([w], lr=0.02, adjust_lr_fn="match_rms_adamw")
    rec("repr", repr(opt))
    for step in range(3):
        opt.zero_grad()
        loss = ((x @ w.T - y) ** 2).mean()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"w{step}", w)
    st = opt.state_dict()["state"][0]
    rec("keys", str(sorted(st)))
    rec("buf", st["momentum_buffer"])
    b = lib.zeros(4, dtype=dt, requires_grad=True)
    rec.err("vector", lambda: lib.optim.Muon([b]))
    rec.err("bad_adjust", lambda: lib.optim.Muon([w], adjust_lr_fn="nope"))
    rec.err("bad_lr", lambda: lib.optim.Muon([w], lr=-1.0))


def p_lbfgs_options(lib, dt, rec):
    lib.manual_seed(25)
    x, y, ps = _mlp_data(lib, dt)
    for kw in [
        {"max_iter": 4, "max_eval": 5},
        {"max_iter": 6, "tolerance_grad": 1e-2},
        {"max_iter": 6, "tolerance_change": 1e-3, "line_search_fn": "strong_wolfe"},
        {"max_iter": 3, "lr": 0.5, "history_size": 2},
    ]:
        qs = [p.detach().clone().requires_grad_() for p in ps]
        opt = lib.optim.LBFGS(qs, **kw)
        tag = ",".join(f"{k}={v}" for k, v in kw.items())

        def closure():
            opt.zero_grad()
            loss = _loss(lib, x, y, qs)
            loss.backward()
            return loss

        for outer in range(2):
            rec(f"{tag}.out{outer}", opt.step(closure))
        st = opt.state[qs[0]]
        rec(f"{tag}.evals", repr((st["func_evals"], st["n_iter"])))
        rec(f"{tag}.d", st["d"])
        rec(f"{tag}.t", repr(type(st["t"]).__name__))
        rec(f"{tag}.prev_loss", repr(type(st["prev_loss"]).__name__))
        rec(f"{tag}.p0", qs[0])
        rec(f"{tag}.repr", repr(opt))
    rec.err("no_closure", lambda: opt.step())
    rec.err("bad_lr", lambda: lib.optim.LBFGS(qs, lr=-1))


def p_tensor_lr_sd(lib, dt, rec):
    lib.manual_seed(26)
    x, y, ps = _mlp_data(lib, dt)
    # (float64 betas: torch's float32 sqrt of 1 - beta2**t is not correctly rounded, README.md)
    b64 = (lib.tensor(0.9, dtype=lib.float64), lib.tensor(0.99, dtype=lib.float64))
    opt = lib.optim.AdamW(ps, lr=lib.tensor(1e-2), betas=b64)
    for _ in range(2):
        _grads(lib, x, y, ps)
        opt.step()
    sd = opt.state_dict()
    rec("lr", repr(sd["param_groups"][0]["lr"]))
    rec("betas", repr(sd["param_groups"][0]["betas"]))
    qs = [p.detach().clone().requires_grad_() for p in ps]
    opt2 = lib.optim.AdamW(qs, lr=0.5)
    opt2.load_state_dict(sd)
    rec("loaded_lr", repr(opt2.param_groups[0]["lr"]))
    rec("loaded_step", repr(opt2.state[qs[0]]["step"]))
    rec("same_obj", str(opt2.state[qs[0]]["exp_avg"] is sd["state"][0]["exp_avg"]))
    opt.param_groups[0]["lr"].fill_(5e-3)
    _grads(lib, x, y, ps)
    opt.step()
    rec("p0", ps[0])
    # lr as a 0-d tensor in a scheduler
    sched = lib.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
    sched.step()
    rec("sched_lr", repr(opt.param_groups[0]["lr"]))
    rec("last_lr", repr(sched.get_last_lr()))
    rec("sparse_repr", repr(lib.optim.SparseAdam([lib.zeros(3, requires_grad=True)])))
    # tensor betas with half-precision parameters: torch casts beta1 to the parameter's dtype
    for half in (lib.float16, lib.bfloat16):
        h = lib.linspace(-1, 1, 5, dtype=half).requires_grad_()
        opt = lib.optim.Adam([h], lr=0.1, betas=(lib.tensor(0.9), lib.tensor(0.99)))
        for i in range(3):
            h.grad = (lib.arange(5, dtype=half) - 2) * (0.3 + i)
            opt.step()
        rec(f"{half}.h", h)
        rec(f"{half}.exp_avg", opt.state[h]["exp_avg"])
