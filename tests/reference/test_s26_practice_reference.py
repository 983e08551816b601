"""Session 26: practitioner training-loop idioms (Trainer-like loops, callbacks, notebooks):
parameter groups with no-decay lists and per-group lrs, unfreezing with add_param_group, freezing
and BatchNorm-in-eval, gradient accumulation with clipping, EMA with _foreach ops and
AveragedModel, model soups, mid-run checkpoint/resume that must equal an uninterrupted run,
partial and renamed state_dict loads, scheduler combinations, early stopping with metrics,
bf16 autocast, seeded DataLoaders, hooks, parametrizations, LoRA merging and model surgery.
Each is written once against a `torch`-like module and run under torch and minitorch after the
same manual_seed; every recorded value (losses, lrs, parameters, grad norms, warnings, error
texts, reprs) must agree: float64 to 1e-11 of its scale, float32 to 1e-4."""

from __future__ import annotations

import io
import random
from importlib import import_module

import pytest

import minitorch
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")
from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401


def _user_warning(w):
    return issubclass(w.category, UserWarning)


def _mod(lib, name):
    return import_module(lib.__name__ + "." + name)


PROGRAMS = [
    "param_groups", "unfreeze", "inplace_grads", "freeze_bn", "accum_clip", "ema_foreach",
    "averaged_model", "resume", "partial_load", "seq_sched", "onecycle", "plateau_lambda",
    "early_stop_metrics", "autocast", "loader_seed", "hooks", "parametrize", "lora_surgery",
    "scaler_skip", "soup_ensemble", "sam_custom", "best_state_alias",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, keep_warnings=_user_warning)
    got = run_program(prog, minitorch, dt, keep_warnings=_user_warning)
    assert_records_match(want, got, 1e-11 if dt == "float64" else 1e-4, dtypes=True, rename=True)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        return f"{type(e).__name__}: {e}"
    return "no error"


def _mlp(lib, dt):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.backbone = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU())
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            return self.head(self.backbone(x))

    return Net().to(dt)


def _data(lib, dt, n=24):
    x = lib.randn(n, 4, dtype=dt)
    y = lib.randint(0, 3, (n,))
    return x, y


# --- the programs: each takes the library, a dtype and a recorder ---


def p_param_groups(lib, dt, rec):
    lib.manual_seed(0)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)
    no_decay = ["bias", "LayerNorm.weight", "backbone.1.weight"]
    groups = [
        {
            "params": [p for n, p in model.backbone.named_parameters()
                       if not any(nd in "backbone." + n for nd in no_decay)],
            "weight_decay": 0.1, "lr": 1e-3,
        },
        {
            "params": [p for n, p in model.backbone.named_parameters()
                       if any(nd in "backbone." + n for nd in no_decay)],
            "weight_decay": 0.0, "lr": 1e-3,
        },
        {"params": model.head.parameters(), "lr": 1e-2},
    ]  # fmt: skip
    opt = lib.optim.AdamW(groups, betas=(0.9, 0.98), eps=1e-6)
    rec("repr", repr(opt))
    rec("ngroups", [len(g["params"]) for g in opt.param_groups])
    rec("keys", str(sorted(opt.param_groups[2].keys())))
    for step in range(6):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        if step == 2:
            for g in opt.param_groups:
                g["lr"] *= 0.5
            opt.param_groups[0]["weight_decay"] = 0.2
        rec(f"lrs{step}", [g["lr"] for g in opt.param_groups])
    rec.params("p", model)
    sd = opt.state_dict()
    rec("sd_groups", str([{k: v for k, v in g.items()} for g in sd["param_groups"]]))
    rec("state_keys", str(sorted(sd["state"][0].keys())))
    rec("step", sd["state"][0]["step"])
    rec("exp_avg_sq", sd["state"][5]["exp_avg_sq"])


def p_unfreeze(lib, dt, rec):
    lib.manual_seed(1)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)
    model.backbone.requires_grad_(False)
    opt = lib.optim.SGD(model.head.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    rec("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
    rec("frozen", sum(p.numel() for p in model.parameters() if not p.requires_grad))
    for step in range(6):
        if step == 3:
            model.backbone.requires_grad_(True)
            opt.add_param_group({"params": model.backbone.parameters(), "lr": 0.01})
            rec("groups", str([(len(g["params"]), g["lr"], g["momentum"], g["nesterov"])
                               for g in opt.param_groups]))  # fmt: skip
            rec("old_state", opt.state[model.head.weight]["momentum_buffer"])
            rec("dup", _err(lambda: opt.add_param_group({"params": [model.head.bias]})))
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y, label_smoothing=0.1)
        loss.backward()
        rec(f"bb_grad{step}", str(model.backbone[0].weight.grad is None))
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("p", model)
    sd = opt.state_dict()
    rec("sd_groups", str(sd["param_groups"]))
    rec("nstate", len(sd["state"]))


def p_inplace_grads(lib, dt, rec):
    lib.manual_seed(2)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, weight_decay=1e-3)
    gen = lib.Generator().manual_seed(5)
    for step in range(4):
        opt.zero_grad(set_to_none=False)
        if step > 0:
            rec(f"zeroed{step}", model.head.weight.grad)
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        with lib.no_grad():
            for p in model.parameters():
                noise = lib.randn(p.shape, generator=gen, dtype=dt) * 0.01 / (1 + step) ** 0.55
                p.grad.add_(noise)
                p.grad.mul_(0.5)
        model.head.bias.grad.zero_()
        rec(f"grad{step}", model.backbone[0].weight.grad)
        opt.step()
        rec(f"loss{step}", loss)
    opt.zero_grad()
    rec("none", str([p.grad is None for p in model.parameters()]))
    rec.params("p", model)


def p_freeze_bn(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(3)
    model = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.3), nn.Linear(4, 2),
    ).to(dt)  # fmt: skip
    x = lib.randn(6, 2, 5, 5, dtype=dt)
    y = lib.randint(0, 2, (6,))
    for p in list(model.parameters())[:4]:
        p.requires_grad = False

    def set_bn_eval(m):
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.eval()

    model.train()
    model.apply(set_bn_eval)
    rec("modes", str([m.training for m in model]))
    rec("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
    opt = lib.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=0.01)
    for step in range(4):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("rm", model[1].running_mean)
    rec("nbt", model[1].num_batches_tracked)
    rec("conv_grad", str(model[0].weight.grad))
    with lib.no_grad():
        feats = model[:5](x)
    rec("feats", feats)
    rec("feats_rg", str((feats.requires_grad, feats.grad_fn)))
    mid = model[:3](x)
    det = mid.detach()
    rec("det", str((mid.requires_grad, det.requires_grad, det.is_leaf)))
    model.train()
    out = model[3:](model[:3](x).detach())
    rec("bn_train_rm", model[1].running_mean)
    rec("out_grad_fn", type(out.grad_fn).__name__)


def p_accum_clip(lib, dt, rec):
    lib.manual_seed(4)
    model = _mlp(lib, dt)
    clip = lib.nn.utils.clip_grad_norm_
    x, y = _data(lib, dt, 32)
    opt = lib.optim.SGD(model.parameters(), lr=0.3, momentum=0.5)
    accum = 4
    for i, (xb, yb) in enumerate(zip(x.split(4), y.split(4), strict=True)):
        loss = lib.nn.functional.cross_entropy(model(xb), yb) / accum
        loss.backward()
        rec(f"loss{i}", loss)
        if (i + 1) % accum == 0:
            foreach = i < 4
            norm = clip(model.parameters(), max_norm=0.5, foreach=foreach)
            rec(f"norm{i}", norm)
            rec(f"normdt{i}", str(norm.dtype))
            opt.step()
            opt.zero_grad()
    loss = lib.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    rec("inf", clip(model.parameters(), 0.1, norm_type="inf"))
    rec("inf_g", model.head.weight.grad)
    rec("l1", clip(model.parameters(), 0.05, norm_type=1.0))
    lib.nn.utils.clip_grad_value_(model.parameters(), clip_value=0.004)
    rec("val_g", model.head.weight.grad)
    rec("g0", clip([], 1.0))
    model.head.bias.grad[0] = float("nan")
    rec("nan_norm", clip(model.parameters(), 1.0))
    rec("nan_err", _err(lambda: clip(model.parameters(), 1.0, error_if_nonfinite=True)))
    model.head.bias.grad[0] = float("inf")
    rec("inf_err", _err(lambda: clip(model.parameters(), 1.0, error_if_nonfinite=True)))
    single = lib.ones(3, dtype=dt, requires_grad=True)
    single.grad = lib.full((3,), 2.0, dtype=dt)
    rec("single", clip(single, 1.0))
    rec("single_g", single.grad)
    rec("gnorm", lib.nn.utils.get_total_norm([p.grad for p in model.backbone.parameters()]))


def p_ema_foreach(lib, dt, rec):
    lib.manual_seed(5)
    model = _mlp(lib, dt)
    ema = _mlp(lib, dt)
    ema.load_state_dict(model.state_dict())
    ema2 = [p.detach().clone() for p in model.parameters()]
    ema3 = [p.detach().clone() for p in model.parameters()]
    for p in ema.parameters():
        p.requires_grad_(False)
    x, y = _data(lib, dt)
    opt = lib.optim.Adam(model.parameters(), lr=0.02)
    for step in range(5):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        decay = min(0.9, (1 + step) / (10 + step))
        with lib.no_grad():
            ep = list(ema.parameters())
            mp = list(model.parameters())
            lib._foreach_mul_(ep, decay)
            lib._foreach_add_(ep, mp, alpha=1 - decay)
            lib._foreach_lerp_(ema2, mp, 1 - decay)
            for e, p in zip(ema3, mp, strict=True):
                e.copy_(e * decay + p.detach() * (1 - decay))
        rec(f"loss{step}", loss)
    rec.params("ema", ema)
    for i, (a, b) in enumerate(zip(ema2, ema3, strict=True)):
        rec(f"lerp{i}", a)
        rec(f"diff{i}", (a - b).abs().max())
    norms = lib._foreach_norm(ema2)
    rec("norms", lib.stack(norms))
    with lib.no_grad():
        sq = lib._foreach_mul(ema2, ema2)
        lib._foreach_addcmul_(sq, ema2, ema3, value=-1.0)
        lib._foreach_sqrt_(lib._foreach_abs(sq))
    rec("sq0", sq[0])


def p_averaged_model(lib, dt, rec):
    nn = lib.nn
    swa = _mod(lib, "optim.swa_utils")
    lib.manual_seed(6)
    model = nn.Sequential(nn.Linear(3, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 1)).to(dt)
    ema = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.8), use_buffers=True)
    swa_m = swa.AveragedModel(model)
    ema1 = swa.AveragedModel(model, avg_fn=swa.get_ema_avg_fn(0.7))
    x = lib.randn(16, 3, dtype=dt)
    y = x.sum(1, keepdim=True) ** 2
    opt = lib.optim.SGD(model.parameters(), lr=0.05)
    sched = swa.SWALR(opt, swa_lr=0.02, anneal_epochs=2, anneal_strategy="linear")
    for step in range(5):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        ema.update_parameters(model)
        swa_m.update_parameters(model)
        ema1.update_parameters(model)
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"lr{step}", sched.get_last_lr())
    rec("n_avg", ema.n_averaged)
    rec("swa_n", swa_m.n_averaged)
    for n, v in ema.state_dict().items():
        rec("ema." + n, v)
    for n, v in swa_m.state_dict().items():
        rec("swa." + n, v)
    rec.params("ema1", ema1)
    swa.update_bn([(x[:8],), (x[8:],)], swa_m)
    rec("swa_rm", swa_m.module[1].running_mean)
    rec("swa_rv", swa_m.module[1].running_var)
    swa_m.eval()
    rec("swa_out", swa_m(x))
    # a model soup: the uniform average of state_dicts of fine-tuned copies
    sds = []
    for k in range(3):
        lib.manual_seed(10 + k)
        m = nn.Sequential(nn.Linear(3, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 1)).to(dt)
        m(x)
        sds.append(m.state_dict())
    soup = {k: sum(sd[k] for sd in sds) / len(sds) if sds[0][k].is_floating_point()
            else sds[0][k] for k in sds[0]}  # fmt: skip
    rec("soup_load", str(model.load_state_dict(soup)))
    rec("soup_nbt", soup["1.num_batches_tracked"])
    model.eval()
    rec("soup_out", model(x))


def _train_state(lib, dt, seed):
    nn = lib.nn
    lib.manual_seed(seed)
    random.seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.25), nn.Tanh(), nn.Linear(8, 3)).to(dt)
    opt = lib.optim.AdamW(model.parameters(), lr=0.01, amsgrad=True)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=10)
    scaler = lib.amp.GradScaler("cpu", enabled=False)
    x, y = _data(lib, dt, 16)
    return model, opt, sched, scaler, x, y


def _steps(lib, model, opt, sched, scaler, x, y, start, stop, rec, tag):
    for step in range(start, stop):
        opt.zero_grad()
        perm = lib.randperm(16)[:8]
        jitter = random.random()
        loss = lib.nn.functional.cross_entropy(model(x[perm] * (1 + jitter * 0.1)), y[perm])
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        sched.step()
        rec(f"{tag}.loss{step}", loss)
        rec(f"{tag}.lr{step}", sched.get_last_lr())


def p_resume(lib, dt, rec):
    model, opt, sched, scaler, x, y = _train_state(lib, dt, 7)
    _steps(lib, model, opt, sched, scaler, x, y, 0, 8, rec, "full")
    rec.params("full", model)
    full = [p.detach().clone() for p in model.parameters()]
    # interrupted run: save at step 4, rebuild everything from other seeds, resume
    model, opt, sched, scaler, x, y = _train_state(lib, dt, 7)
    _steps(lib, model, opt, sched, scaler, x, y, 0, 4, rec, "part")
    buf = io.BytesIO()
    ckpt = {
        "model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
        "scaler": scaler.state_dict(), "rng": lib.get_rng_state(), "py": random.getstate(),
        "epoch": 4,
    }  # fmt: skip
    lib.save(ckpt, buf)
    rec("sched_sd", str(sorted((k, v) for k, v in sched.state_dict().items()
                               if not k.startswith("_") and k != "base_lrs")))  # fmt: skip
    rec("scaler_sd", str(scaler.state_dict()))
    rec("rng_dtype", str(ckpt["rng"].dtype) + str(ckpt["rng"].shape))
    buf.seek(0)
    model, opt, sched, scaler, _, _ = _train_state(lib, dt, 99)
    lib.rand(5)
    random.random()
    ck = lib.load(buf, weights_only=False)
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    sched.load_state_dict(ck["sched"])
    scaler.load_state_dict(ck["scaler"])
    lib.set_rng_state(ck["rng"])
    random.setstate(ck["py"])
    _steps(lib, model, opt, sched, scaler, x, y, ck["epoch"], 8, rec, "resumed")
    rec.params("resumed", model)
    rec(
        "bit_for_bit", str([lib.equal(a, b) for a, b in zip(full, model.parameters(), strict=True)])
    )
    rec("amsgrad", opt.state[model[0].weight]["max_exp_avg_sq"])
    buf.seek(0)
    rec("wo", _err(lambda: lib.load(buf, weights_only=True)).split("\n")[0][:60])


def p_partial_load(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(8)
    src = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2)).to(dt)
    dst = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 5)).to(dt)
    sd = src.state_dict()
    rec("shape_err", _err(lambda: dst.load_state_dict(sd)))
    own = dst.state_dict()
    filt = {k: v for k, v in sd.items() if k in own and v.shape == own[k].shape}
    res = dst.load_state_dict(filt, strict=False)
    rec("res", str(res))
    rec("res_fields", str((res.missing_keys, res.unexpected_keys)))
    rec("w0", dst[0].weight)
    extra = dict(sd)
    extra["head.weight"] = lib.zeros(2, dtype=dt)
    del extra["0.bias"]
    rec("strict_err", _err(lambda: src.load_state_dict(extra)))
    rec("nonstrict", str(src.load_state_dict(extra, strict=False)))
    # a DataParallel checkpoint: strip the 'module.' prefix
    dp = {"module." + k: v for k, v in sd.items()}
    rec("dp_err", _err(lambda: src.load_state_dict(dp)))
    fixed = {k.removeprefix("module."): v for k, v in dp.items()}
    rec("dp_ok", str(src.load_state_dict(fixed)))
    nn.modules.utils.consume_prefix_in_state_dict_if_present(dp, "module.")
    rec("consumed", str(list(dp.keys())))
    # assign=True keeps the checkpoint's tensors (and their requires_grad=False)
    fresh = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2)).to(dt)
    w = lib.ones(6, 4, dtype=dt)
    sd2 = dict(sd)
    sd2["0.weight"] = w
    fresh.load_state_dict(sd2, assign=True)
    rec("assign_same", str(fresh[0].weight.data_ptr() == w.data_ptr()))
    rec("assign_types", str((type(fresh[0].weight).__name__, fresh[0].weight.requires_grad)))
    rec("dtype_err", _err(lambda: dst[0].load_state_dict({"weight": lib.ones(6, 4, dtype=lib.int64),
                                                           "bias": lib.zeros(6)})))  # fmt: skip
    rec("cast", dst[0].weight)


def p_seq_sched(lib, dt, rec):
    sch = lib.optim.lr_scheduler
    lib.manual_seed(9)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    warm = sch.LinearLR(opt, start_factor=0.1, end_factor=1.0, total_iters=3)
    cos = sch.CosineAnnealingLR(opt, T_max=6, eta_min=1e-3)
    sched = sch.SequentialLR(opt, schedulers=[warm, cos], milestones=[3])
    rec("init_lr", sched.get_last_lr())
    for step in range(10):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"lr{step}", sched.get_last_lr())
        rec(f"glr{step}", [g["lr"] for g in opt.param_groups])
    sd = sched.state_dict()
    rec("sd_keys", str(sorted(sd.keys())))
    rec("sd_last", sd["last_epoch"])
    rec("sub_last", str([s["last_epoch"] for s in sd["_schedulers"]]))
    opt2 = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
    c = sch.ChainedScheduler([sch.ConstantLR(opt2, factor=0.5, total_iters=2),
                              sch.ExponentialLR(opt2, gamma=0.9)])  # fmt: skip
    lrs = []
    for _ in range(4):
        opt2.step()
        c.step()
        lrs.append(c.get_last_lr()[0])
    rec("chained", lrs)
    opt3 = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
    poly = sch.PolynomialLR(opt3, total_iters=4, power=2.0)
    lrs = []
    for _ in range(5):
        opt3.step()
        poly.step()
        lrs.append(poly.get_last_lr()[0])
    rec("poly", lrs)


def p_onecycle(lib, dt, rec):
    sch = lib.optim.lr_scheduler
    lib.manual_seed(10)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3, betas=(0.95, 0.999))
    sched = sch.OneCycleLR(opt, max_lr=[0.01], epochs=2, steps_per_epoch=3, pct_start=0.25,
                           div_factor=10, final_div_factor=100, three_phase=True)  # fmt: skip
    rec("init", str((opt.param_groups[0]["lr"], opt.param_groups[0]["betas"],
                     opt.param_groups[0]["initial_lr"], opt.param_groups[0]["max_lr"],
                     opt.param_groups[0]["min_lr"])))  # fmt: skip
    for ep in range(2):
        for b in range(3):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x[b::3]), y[b::3])
            loss.backward()
            opt.step()
            sched.step()
            rec(f"loss{ep}{b}", loss)
            rec(f"lr{ep}{b}", sched.get_last_lr())
            rec(f"beta{ep}{b}", list(opt.param_groups[0]["betas"]))
    rec("over", _err(sched.step))
    opt2 = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    s2 = sch.OneCycleLR(opt2, max_lr=0.5, total_steps=5, anneal_strategy="linear")
    lrs, moms = [], []
    for _ in range(5):
        opt2.step()
        s2.step()
        lrs.append(s2.get_last_lr()[0])
        moms.append(opt2.param_groups[0]["momentum"])
    rec("lin_lrs", lrs)
    rec("lin_moms", moms)
    rec("bad", _err(lambda: sch.OneCycleLR(opt2, max_lr=0.1)))
    rec("bad2", _err(lambda: sch.OneCycleLR(opt2, max_lr=0.1, total_steps=5, pct_start=1.5)))


def p_plateau_lambda(lib, dt, rec):
    sch = lib.optim.lr_scheduler
    lib.manual_seed(11)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.5)
    plateau = sch.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, threshold=0.05,
                                    cooldown=1, min_lr=0.05)  # fmt: skip
    for ep in range(8):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        with lib.no_grad():
            val = lib.nn.functional.cross_entropy(model(x[:8]), y[:8])
        plateau.step(val)
        rec(f"loss{ep}", loss)
        rec(f"lr{ep}", plateau.get_last_lr())
        rec(f"bad{ep}", plateau.num_bad_epochs)
    rec("best", plateau.best)
    rec("best_type", type(plateau.best).__name__)
    sd = plateau.state_dict()
    rec("sd_keys", str(sorted(sd.keys())))
    warmup = 3

    def lr_lambda(step):
        return (step + 1) / warmup if step < warmup else 0.9 ** (step - warmup)

    opt2 = lib.optim.SGD(model.parameters(), lr=0.2)
    lam = sch.LambdaLR(opt2, lr_lambda)
    rec("lam0", lam.get_last_lr())
    for _ in range(5):
        opt2.step()
        lam.step()
    rec("lam", lam.get_last_lr())
    rec("lam_sd", str(sorted(lam.state_dict().keys())))
    opt3 = lib.optim.SGD(model.parameters(), lr=0.2)
    step_s = sch.StepLR(opt3, step_size=2, gamma=0.1)
    opt3.step()
    rec.warns("epoch_warn", lambda: step_s.step(5))
    rec("epoch_lr", step_s.get_last_lr())
    opt4 = lib.optim.SGD(model.parameters(), lr=0.2)
    s4 = sch.StepLR(opt4, step_size=1)
    rec.warns("order_warn", s4.step)
    opt5 = lib.optim.SGD(model.parameters(), lr=0.2)
    p2 = sch.ReduceLROnPlateau(opt5, mode="max")
    p2.step(lib.tensor(0.5))
    rec("max_best", p2.best)
    rec("max_type", type(p2.best).__name__)
    rec("bad_mode", _err(lambda: sch.ReduceLROnPlateau(opt5, mode="avg")))


def p_early_stop_metrics(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(12)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt, 40)
    xv, yv = _data(lib, dt, 20)
    opt = lib.optim.RMSprop(model.parameters(), lr=0.02, centered=True)
    best, bad, patience, best_state = float("inf"), 0, 2, None
    for ep in range(12):
        model.train()
        for xb, yb in zip(x.chunk(3), y.chunk(3), strict=True):
            opt.zero_grad()
            nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()
        model.eval()
        preds, losses, correct = [], 0.0, 0
        with lib.no_grad():
            for xb, yb in zip(xv.split(6), yv.split(6), strict=True):
                out = model(xb)
                losses += nn.functional.cross_entropy(out, yb, reduction="sum").item()
                correct += (out.argmax(dim=1) == yb).sum().item()
                preds.append(out.argmax(1))
        val = losses / len(yv)
        rec(f"val{ep}", val)
        rec(f"acc{ep}", correct / len(yv))
        if val < best - 1e-4:
            best, bad = val, 0
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            bad += 1
            if bad >= patience:
                rec("stopped", ep)
                break
    pred = lib.cat(preds)
    rec("pred", pred)
    cm = lib.bincount(yv * 3 + pred, minlength=9).reshape(3, 3)
    rec("cm", cm)
    rec("cm_repr", repr(cm))
    tp = cm.diag()
    prec = tp / cm.sum(0).clamp(min=1)
    rec("prec", prec)
    rec("recall", tp.float() / cm.sum(1))
    rec("f1", (2 * prec * (tp / cm.sum(1))) / (prec + tp / cm.sum(1) + 1e-12))
    rec("acc_t", (pred == yv).float().mean())
    rec("acc_d", (pred == yv).to(dt).mean())
    model.load_state_dict(best_state)
    rec.params("best", model)
    probs = lib.softmax(model(xv), -1)
    top2 = probs.topk(2, dim=1)
    rec("top2", top2.values)
    rec("top2i", top2.indices)
    rec("top2_acc", (top2.indices == yv[:, None]).any(1).sum())
    rec("item_type", type((pred == yv).sum().item()).__name__)


def p_autocast(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(13)
    # no LayerNorm: its bfloat16 backward rounds the weight/bias sums differently (see
    # test_s22_programs_reference.py's SKIP)
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.2), nn.GELU(), nn.Linear(8, 3)).to(dt)
    x, y = _data(lib, dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler(enabled=False)
    rec("scale_disabled", scaler.get_scale())
    rec("enabled", str(scaler.is_enabled()))
    for step in range(3):
        opt.zero_grad(set_to_none=True)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            h = model[0](x)
            rec(f"h{step}.dtype", str(h.dtype))
            out = model(x)
            rec(f"out{step}.dtype", str(out.dtype))
            loss = nn.functional.cross_entropy(out, y)
            rec(f"loss{step}.dtype", str(loss.dtype))
        scaled = scaler.scale(loss)
        rec(f"same{step}", str(scaled is loss))
        scaled.backward()
        scaler.unscale_(opt)
        rec(f"gdt{step}", str(model[0].weight.grad.dtype))
        rec(f"gnorm{step}", nn.utils.clip_grad_norm_(model.parameters(), 1.0))
        scaler.step(opt)
        scaler.update()
        rec(f"loss{step}", loss)
    rec.params("p", model)
    with lib.autocast("cpu", dtype=lib.bfloat16, enabled=False):
        rec("off", model(x))
    with lib.autocast(device_type="cpu"):
        rec("default_dtype", str(lib.get_autocast_dtype("cpu")))
        rec("is_on", str(lib.is_autocast_enabled("cpu")))
    rec("bad_dev", _err(lambda: lib.autocast("tpu")))


def p_loader_seed(lib, dt, rec):
    data = _mod(lib, "utils.data")
    lib.manual_seed(14)
    x, y = _data(lib, dt, 10)
    ds = data.TensorDataset(x, y)
    calls = []

    def seed_worker(worker_id):
        calls.append(worker_id)

    g = lib.Generator()
    g.manual_seed(0)
    dl = data.DataLoader(ds, batch_size=3, shuffle=True, generator=g, drop_last=True,
                         worker_init_fn=seed_worker)  # fmt: skip
    rec("len", len(dl))
    for ep in range(2):
        for i, (xb, yb) in enumerate(dl):
            rec(f"y{ep}{i}", yb)
            rec(f"x{ep}{i}", xb)
    rec("calls", str(calls))
    g.manual_seed(0)
    rec("replay", lib.cat([yb for _, yb in dl]))
    dl2 = data.DataLoader(ds, batch_size=4, shuffle=True)
    lib.manual_seed(3)
    rec("global", lib.cat([yb for _, yb in dl2]))
    rec("after", lib.rand(2, dtype=dt))
    tr, va = data.random_split(ds, [0.7, 0.3], generator=lib.Generator().manual_seed(42))
    rec("split", str((list(tr.indices), list(va.indices))))
    sampler = data.RandomSampler(ds, replacement=True, num_samples=6,
                                 generator=lib.Generator().manual_seed(1))  # fmt: skip
    rec("rs", str(list(sampler)))
    sub = data.SubsetRandomSampler([1, 3, 5, 7], generator=lib.Generator().manual_seed(2))
    rec("srs", str(list(sub)))
    bs = data.BatchSampler(data.SequentialSampler(range(7)), 3, drop_last=False)
    rec("bs", str(list(bs)))
    dl3 = data.DataLoader(ds, batch_size=None, shuffle=False)
    first = next(iter(dl3))
    rec("nobatch", str((first[0].shape, first[1].dim())))
    dl4 = data.DataLoader(ds, batch_size=4)
    rec("bad_seed", _err(lambda: data.DataLoader(ds, batch_size=4, worker_init_fn=1)))
    rec("len4", len(dl4))


def p_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(15)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)
    acts, gnorms, handles = {}, {}, []

    def save(name):
        def hook(mod, inp, out):
            acts[name] = out.detach()

        return hook

    def bw(name):
        def hook(mod, gin, gout):
            gnorms[name] = gout[0].norm().item()
            rec(f"gin_none.{name}", str([g is None for g in gin]))

        return hook

    for name, m in model.named_modules():
        if isinstance(m, nn.Linear):
            handles.append(m.register_forward_hook(save(name)))
            handles.append(m.register_full_backward_hook(bw(name)))
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    for k in sorted(acts):
        rec("act." + k, acts[k])
    rec("gnorms", str(sorted(gnorms)))
    rec("gnorm_vals", [gnorms[k] for k in sorted(gnorms)])

    def pre(mod, args, kwargs):
        return (args[0] * 2,), kwargs

    def scale_out(mod, args, kwargs, out):
        return out + kwargs.get("shift", 0)

    class Shift(nn.Module):
        def forward(self, x, shift=0.0):
            return x - shift

    s = Shift()
    h1 = s.register_forward_pre_hook(pre, with_kwargs=True)
    h2 = s.register_forward_hook(scale_out, with_kwargs=True)
    rec("kw", s(lib.ones(2, dtype=dt), shift=3.0))
    h1.remove()
    h2.remove()
    rec("kw_removed", s(lib.ones(2, dtype=dt), shift=3.0))
    for h in handles:
        h.remove()
    acts.clear()
    model(x)
    rec("after_remove", str(sorted(acts)))
    rec("hook_dicts", str((len(model.head._forward_hooks), len(model.head._backward_hooks))))
    # a tensor hook clipping gradients per parameter
    hs = [p.register_hook(lambda g: g.clamp(-0.01, 0.01)) for p in model.parameters()]
    model.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    rec("clamped", model.head.weight.grad)
    for h in hs:
        h.remove()
    # post-accumulate-grad hook doing an optimizer step in backward
    opts = {p: lib.optim.SGD([p], lr=0.1) for p in model.parameters()}

    def step_hook(p):
        opts[p].step()
        opts[p].zero_grad()

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(step_hook)
    model.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    rec.params("fused", model)
    rec("fused_grad", str([p.grad for p in model.parameters()]))
    out = model.backbone[0](x)
    out.retain_grad()
    out.sum().backward()
    rec("retained", out.grad)


def p_parametrize(lib, dt, rec):
    nn = lib.nn
    P = nn.utils.parametrize
    lib.manual_seed(16)

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Positive(nn.Module):
        def forward(self, X):
            return nn.functional.softplus(X)

        def right_inverse(self, Y):
            return lib.log(lib.expm1(Y))

    layer = nn.Linear(4, 4).to(dt)
    P.register_parametrization(layer, "weight", Symmetric())
    P.register_parametrization(layer, "bias", Positive())
    rec("sym", layer.weight)
    rec("is_sym", (layer.weight - layer.weight.T).abs().max())
    rec("keys", str(list(layer.state_dict().keys())))
    rec("repr", repr(layer))
    rec("is_param", str(P.is_parametrized(layer, "weight")))
    rec("names", str([n for n, _ in layer.named_parameters()]))
    opt = lib.optim.Adam(layer.parameters(), lr=0.05)
    x = lib.randn(8, 4, dtype=dt)
    for step in range(4):
        opt.zero_grad()
        with P.cached():
            out = layer(x)
            loss = (out**2).mean() + layer.weight.trace()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("orig", layer.parametrizations.weight.original)
    rec("bias", layer.bias)
    layer.bias = lib.full((4,), 0.5, dtype=dt)
    rec("bias_orig", layer.parametrizations.bias.original)
    P.remove_parametrizations(layer, "weight", leave_parametrized=True)
    rec("removed", str([n for n, _ in layer.named_parameters()]))
    rec("w_after", layer.weight)
    rec("rm_err", _err(lambda: P.remove_parametrizations(layer, "weight")))
    lin = nn.Linear(3, 3).to(dt)
    nn.utils.parametrizations.orthogonal(lin)
    q = lin.weight
    rec("orth", (q @ q.T - lib.eye(3, dtype=dt)).abs().max() < 1e-5)
    rec("orth_keys", str(sorted(lin.state_dict().keys())))
    sn = nn.utils.parametrizations.spectral_norm(nn.Linear(3, 2).to(dt))
    sn(lib.randn(2, 3, dtype=dt))
    rec("sn_keys", str(sorted(sn.state_dict().keys())))
    rec("sn_sv", lib.linalg.matrix_norm(sn.weight.detach(), 2))


def p_lora_surgery(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(17)

    class LoRALinear(nn.Module):
        def __init__(self, base, r=2, alpha=4.0):
            super().__init__()
            self.base = base
            self.A = nn.Parameter(lib.randn(r, base.in_features, dtype=dt) * 0.1)
            self.B = nn.Parameter(lib.zeros(base.out_features, r, dtype=dt))
            self.scale = alpha / r

        def forward(self, x):
            return self.base(x) + (x @ self.A.T @ self.B.T) * self.scale

        def extra_repr(self):
            return f"r={self.A.shape[0]}, scale={self.scale}"

    model = nn.Sequential(
        nn.Linear(4, 8), nn.ReLU(), nn.Sequential(nn.Linear(8, 8), nn.Tanh()), nn.Linear(8, 2)
    ).to(dt)
    x = lib.randn(10, 4, dtype=dt)
    y = lib.randn(10, 2, dtype=dt)
    for name, mod in list(model.named_modules()):
        if isinstance(mod, nn.Linear) and name != "3":
            parent_name, _, child = name.rpartition(".")
            parent = model.get_submodule(parent_name) if parent_name else model
            setattr(parent, child, LoRALinear(mod))
    rec("repr", repr(model))
    for p in model.parameters():
        p.requires_grad = False
    for n, p in model.named_parameters():
        if n.endswith(".A") or n.endswith(".B"):
            p.requires_grad = True
    rec("trainable", str([n for n, p in model.named_parameters() if p.requires_grad]))
    opt = lib.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=0.05)
    for step in range(4):
        opt.zero_grad()
        loss = nn.functional.smooth_l1_loss(model(x), y, beta=0.5)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    before = model(x).detach()
    with lib.no_grad():
        for name, mod in list(model.named_modules()):
            if isinstance(mod, LoRALinear):
                mod.base.weight += mod.B @ mod.A * mod.scale
                parent_name, _, child = name.rpartition(".")
                parent = model.get_submodule(parent_name) if parent_name else model
                setattr(parent, child, mod.base)
    rec("merged_repr", repr(model))
    rec("merged_diff", (model(x) - before).abs().max())
    rec("keys", str(list(model.state_dict().keys())))
    rec("get_err", _err(lambda: model.get_submodule("2.5")))
    rec("get_err2", _err(lambda: model.get_submodule("1.weight")))
    rec("param_err", _err(lambda: model.get_parameter("2.0.bias2")))
    model[2][0] = nn.Identity()
    rec("ident", repr(model[2]))
    del model[1]
    rec("del", repr(model))
    rec("set_err", _err(lambda: setattr(model, "0", lib.ones(2))))


def p_scaler_skip(lib, dt, rec):
    lib.manual_seed(18)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    sched = lib.optim.lr_scheduler.StepLR(opt, 1, 0.7)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**16, growth_interval=2)
    for step in range(6):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        blown = loss * (1e308 if step in (0, 3) else 1.0) * (1e30 if step in (0, 3) else 1.0)
        scaler.scale(blown).backward()
        scaler.unscale_(opt)
        norm = lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        rec(f"norm{step}", norm)
        rec(f"ret{step}", str(scaler.step(opt)))
        scaler.update()
        sched.step()
        rec(f"scale{step}", scaler.get_scale())
        rec(f"lr{step}", sched.get_last_lr())
        rec(f"loss{step}", loss)
    rec("sd", str(scaler.state_dict()))
    rec.params("p", model)
    rec("state", opt.state[model.head.weight]["momentum_buffer"])
    scaler.scale(lib.nn.functional.cross_entropy(model(x), y)).backward()
    scaler.unscale_(opt)
    rec("twice2", _err(lambda: scaler.unscale_(opt)))


def p_soup_ensemble(lib, dt, rec):
    func = _mod(lib, "func")
    nn = lib.nn
    x, y = None, None
    models = []
    rec("classes", _err(lambda: func.stack_module_state([_mlp(lib, dt), _mlp(lib, dt)])))
    for k in range(3):
        lib.manual_seed(20 + k)
        m = _mlp(lib, dt) if k == 0 else type(models[0])().to(dt)
        if x is None:
            x, y = _data(lib, dt, 12)
        opt = lib.optim.Adam(m.parameters(), lr=0.05)
        for _ in range(3):
            opt.zero_grad()
            nn.functional.cross_entropy(m(x), y).backward()
            opt.step()
        models.append(m)
    params, buffers = func.stack_module_state(models)
    rec("stacked", str(sorted((k, tuple(v.shape)) for k, v in params.items())))

    def one(p, b, xb):
        return func.functional_call(models[0], (p, b), (xb,))

    logits = func.vmap(one, in_dims=(0, 0, None))(params, buffers, x)
    rec("ens_logits", logits)
    rec("ens_pred", logits.mean(0).argmax(-1))
    soup = {k: v.mean(0) for k, v in params.items()}
    out = func.functional_call(models[0], soup, (x,))
    rec("soup_out", out)
    rec("soup_loss", nn.functional.cross_entropy(out, y))
    # greedy soup: keep adding ingredients while the held-out loss improves
    order = sorted(range(3), key=lambda i: nn.functional.cross_entropy(models[i](x), y).item())
    rec("order", order)
    chosen = [order[0]]
    best = nn.functional.cross_entropy(models[order[0]](x), y).item()
    for i in order[1:]:
        trial = {k: params[k][chosen + [i]].mean(0) for k in params}
        loss = nn.functional.cross_entropy(func.functional_call(models[0], trial, (x,)), y).item()
        rec(f"trial{i}", loss)
        if loss < best:
            chosen, best = chosen + [i], loss
    rec("chosen", chosen)
    soup_loss = nn.functional.cross_entropy(func.functional_call(models[0], soup, (x,)), y)
    g = lib.autograd.grad(soup_loss, list(soup.values()))
    rec("soup_grad", g[0])


def p_sam_custom(lib, dt, rec):
    """A SAM wrapper around a base optimizer, a user-written Optimizer subclass (LARS-like, with
    a closure), Lookahead by hand and a user LRScheduler subclass."""
    nn = lib.nn
    lib.manual_seed(23)
    model = _mlp(lib, dt)
    x, y = _data(lib, dt)

    class SAM(lib.optim.Optimizer):
        def __init__(self, params, base, rho=0.05, **kw):
            super().__init__(params, dict(rho=rho, **kw))
            self.base = base(self.param_groups, **kw)
            self.param_groups = self.base.param_groups
            self.defaults.update(self.base.defaults)

        @lib.no_grad()
        def first_step(self):
            norms = [p.grad.norm(p=2) for g in self.param_groups for p in g["params"]]
            gn = lib.norm(lib.stack(norms), p=2)
            for g in self.param_groups:
                scale = g["rho"] / (gn + 1e-12)
                for p in g["params"]:
                    self.state[p]["old_p"] = p.data.clone()
                    p.add_(p.grad * scale.to(p))
            self.zero_grad()

        @lib.no_grad()
        def second_step(self):
            for g in self.param_groups:
                for p in g["params"]:
                    p.data = self.state[p]["old_p"]
            self.base.step()
            self.zero_grad()

    sam = SAM(model.parameters(), lib.optim.SGD, lr=0.1, momentum=0.9)
    rec("sam_repr", repr(sam))
    for step in range(3):
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        sam.first_step()
        nn.functional.cross_entropy(model(x), y).backward()
        sam.second_step()
        rec(f"sam{step}", loss)
    rec("sam_state", str(sorted(sam.state_dict()["state"][0].keys())))
    rec.params("sam", model)

    class Lars(lib.optim.Optimizer):
        def __init__(self, params, lr=0.1, eta=0.001):
            if lr < 0:
                raise ValueError(f"Invalid learning rate: {lr}")
            super().__init__(params, {"lr": lr, "eta": eta})

        @lib.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with lib.enable_grad():
                    loss = closure()
            for g in self.param_groups:
                for p in g["params"]:
                    if p.grad is None:
                        continue
                    st = self.state[p]
                    if not st:
                        st["step"] = 0
                        st["mom"] = lib.zeros_like(p, memory_format=lib.preserve_format)
                    st["step"] += 1
                    trust = g["eta"] * p.norm() / (p.grad.norm() + 1e-9)
                    st["mom"].mul_(0.9).add_(p.grad * trust * g["lr"])
                    p.sub_(st["mom"])
            return loss

    class Warm(lib.optim.lr_scheduler.LRScheduler):
        def __init__(self, opt, warm, last_epoch=-1):
            self.warm = warm
            super().__init__(opt, last_epoch)

        def get_lr(self):
            f = min(1.0, (self.last_epoch + 1) / self.warm)
            return [b * f for b in self.base_lrs]

    lars = Lars(model.parameters(), lr=1.0, eta=0.02)
    sched = Warm(lars, 3)
    slow = [p.detach().clone() for p in model.parameters()]

    def closure():
        lars.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        return loss

    for step in range(6):
        rec(f"lars{step}", lars.step(closure))
        sched.step()
        rec(f"lr{step}", sched.get_last_lr())
        if (step + 1) % 3 == 0:  # Lookahead: pull the slow weights halfway, restart from them
            with lib.no_grad():
                for s, p in zip(slow, model.parameters(), strict=True):
                    s.add_(p - s, alpha=0.5)
                    p.copy_(s)
    sd = lars.state_dict()
    rec("lars_groups", str(sd["param_groups"]))
    rec("lars_step", str(sd["state"][0]["step"]))
    rec("sched_sd", str(sorted(sched.state_dict())))
    rec.params("lars", model)
    rec("bad_lr", _err(lambda: Lars(model.parameters(), lr=-1)))


def p_best_state_alias(lib, dt, rec):
    """The classic early-stopping bug: `best = model.state_dict()` without copying aliases the
    live parameters (every optimizer updates them in place), while a deepcopy keeps them."""
    import copy

    nn = lib.nn
    lib.manual_seed(24)
    # no bias before the BatchNorm: its gradient is 0 up to round-off, which Adam-like
    # optimizers would turn into full-size steps
    model = nn.Sequential(
        nn.Linear(4, 6, bias=False), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3)
    )
    model = model.to(dt)
    x, y = _data(lib, dt)
    for name, kw in [("SGD", {"momentum": 0.9}), ("Adam", {"foreach": True}), ("RMSprop", {}),
                     ("NAdam", {"foreach": False}), ("Adafactor", {})]:  # fmt: skip
        opt = getattr(lib.optim, name)(model.parameters(), lr=0.01, **kw)
        alias = model.state_dict()
        kept = copy.deepcopy(model.state_dict())
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        rec(name + ".aliased", str([lib.equal(alias[k], v) for k, v in model.state_dict().items()]))
        rec(name + ".kept", str([lib.equal(kept[k], v) for k, v in model.state_dict().items()]))
        rec(name + ".nbt", alias["1.num_batches_tracked"])
    rec("meta", str(copy.deepcopy(model.state_dict())._metadata))
    model.load_state_dict(kept)
    rec.params("restored", model)
    rec("rm", model[1].running_mean)
