"""Differential fuzzer: lr schedulers and swa_utils.

Random programs (--gen): gen (an optimizer with 1-3 param groups, a scheduler among StepLR/
MultiStepLR/ExponentialLR/CosineAnnealing*/CyclicLR/OneCycleLR/ReduceLROnPlateau/LambdaLR/
MultiplicativeLR/LinearLR/ConstantLR/PolynomialLR/SequentialLR/ChainedScheduler/..., steps,
state_dict round trips, get_last_lr), gen_mut (odd constructor arguments), gen_swa
(AveragedModel/SWALR/update_bn with avg_fn/multi_avg_fn). After every statement: exception,
warnings, lrs, scheduler state and parameters are compared. --cases is per generator. Adapted
from session 23's sched fuzzer (fuzz.py, swa_gen.py).
"""

# ruff: noqa: B007, E501, E721, UP031  (code adapted as-is from the session fuzzers)

import math
import random
import re
import traceback
import warnings

import _harness as H
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Differential fuzzer: lr schedulers / swa_utils, torch vs minitorch.


def norm(v, depth=0):
    if depth > 6:
        return repr(type(v))
    if hasattr(v, "tolist") and hasattr(v, "dtype") and hasattr(v, "shape"):
        return (
            "T",
            str(v.dtype).split(".")[-1],
            norm(v.detach().cpu().tolist() if hasattr(v, "detach") else v.tolist(), depth + 1),
        )
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int,)):
        return v
    if isinstance(v, float):
        return v
    if isinstance(v, (list, tuple)):
        return [norm(x, depth + 1) for x in v]
    if isinstance(v, dict):
        return {str(k): norm(x, depth + 1) for k, x in v.items()}
    if callable(v):
        return "<callable>"
    return repr(type(v).__name__)


def close(a, b, path="", tol=1e-12):
    if (
        isinstance(a, float)
        and isinstance(b, (int, float))
        or isinstance(b, float)
        and isinstance(a, (int, float))
    ):
        if isinstance(a, bool) or isinstance(b, bool):
            return a == b
        if math.isnan(a) and math.isnan(b):
            return True
        if a == b:
            return True
        return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    if type(a) != type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(close(x, y, tol=tol) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], tol=tol) for k in a)
    return a == b


def run_program(lib, stmts, obs_src):
    ns = {"torch": lib, "math": math}
    trace = []
    exec(obs_src, ns)
    for s in stmts:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                exec(s, ns)
                exc = None
            except Exception as e:
                exc = (type(e).__name__, str(e))
            try:
                o = ns["obs"]()
            except Exception as e:
                o = ("obs-exc", type(e).__name__, str(e))
        ws = [
            (x.category.__name__, str(x.message))
            for x in w
            if x.category is not RuntimeWarning
            and "deprecat" not in str(x.message).lower()
            or "epoch" in str(x.message)
        ]
        trace.append((s, exc, ws, norm(o)))
        if exc is not None and s.startswith("#fatal"):
            break
    return trace


OBS = """
def obs():
    out = {}
    gs = opt.param_groups if "opt" in globals() else []
    out["lr"] = [g["lr"] for g in gs]
    out["mom"] = [g.get("momentum") for g in gs]
    out["betas"] = [g.get("betas") for g in gs]
    s = globals().get("sched")
    if s is not None:
        for k in ("last_epoch", "_step_count", "base_lrs", "T_cur", "T_i", "best", "num_bad_epochs", "cooldown_counter", "min_lrs"):
            if hasattr(s, k):
                out[k] = getattr(s, k)
        if hasattr(s, "_last_lr"):
            out["last_lr"] = s.get_last_lr()
        out["sd"] = s.state_dict()
    if "_keys" in globals():
        out["keys"] = _keys
    for k in ("_out", "_out2", "_g"):
        if k in globals():
            out[k] = globals()[k]
    if "swa" in globals():
        out["n_avg"] = swa.n_averaged.item()
    if "_g" in globals():
        out["g"] = _g
    for k in ("params", ):
        if k in globals():
            out[k] = [p.detach().tolist() for p in globals()[k]]
    if "swa" in globals():
        out["swa"] = {k: v.tolist() for k, v in swa.state_dict().items()}
    if "model" in globals():
        out["model"] = {k: v.tolist() for k, v in model.state_dict().items()}
    return out
"""


def fnum(r, lo, hi, nd=3):
    return round(r.uniform(lo, hi), nd)


OPTS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "NAdam", "RAdam", "Adamax"]


def gen_opt(r, tensor_lr=False):
    name = r.choice(OPTS)
    ng = r.randint(1, 3)
    lines = [
        "params = [torch.nn.Parameter(torch.tensor([%r, %r], dtype=torch.float64)) for _ in range(%d)]"
        % (fnum(r, -1, 1), fnum(r, -1, 1), ng)
    ]
    groups = []
    for i in range(ng):
        g = {"lr": fnum(r, 0.001, 0.5, 4)}
        if name in ("SGD", "RMSprop") and r.random() < 0.7:
            g["momentum"] = fnum(r, 0.1, 0.95, 2)
        if name in ("Adam", "AdamW", "NAdam", "RAdam", "Adamax") and r.random() < 0.5:
            g["betas"] = (fnum(r, 0.5, 0.95, 2), fnum(r, 0.9, 0.999, 3))
        groups.append(g)
    gs = []
    for i, g in enumerate(groups):
        items = ", ".join(
            f"{k!r}: {v!r}" for k, v in g.items() if not (i == 0 and k == "lr" and tensor_lr)
        )
        if tensor_lr:
            items = "'lr': torch.tensor({!r}, dtype=torch.float64)".format(g["lr"]) + (
                ", " + items if items else ""
            )
        gs.append("{'params': [params[%d]], %s}" % (i, items))
    kw = ""
    if name == "SGD":
        kw = f", momentum={fnum(r, 0.0, 0.9, 2)!r}" if r.random() < 0.6 else ""
    lines.append(
        "def _l():\n    opt.zero_grad()\n    sum(((p - 0.3) ** 2).sum() for p in params).backward()"
    )
    lines.append("opt = torch.optim.{}([{}], lr=0.01{})".format(name, ", ".join(gs), kw))
    return name, ng, lines


def lst(r, ng, f):
    if r.random() < 0.4:
        return "[{}]".format(", ".join(repr(f()) for _ in range(ng)))
    return repr(f())


LAMBDAS = [
    "lambda e: 0.95 ** e",
    "lambda e: 1.0 / (e + 1)",
    "lambda e: 0.9",
    "lambda e: 1 + 0.01 * (e % 3)",
    "lambda e: max(0.1, 1 - e / 50)",
]


def gen_sched(r, optname, ng, allow_compose=True, last_epoch=None):
    kinds = [
        "StepLR",
        "MultiStepLR",
        "ConstantLR",
        "LinearLR",
        "ExponentialLR",
        "PolynomialLR",
        "CosineAnnealingLR",
        "CosineAnnealingWarmRestarts",
        "CyclicLR",
        "OneCycleLR",
        "LambdaLR",
        "MultiplicativeLR",
        "ReduceLROnPlateau",
    ]
    if allow_compose:
        kinds += ["SequentialLR", "ChainedScheduler", "SWALR"]
    k = r.choice(kinds)
    le = "" if last_epoch is None else ", last_epoch=%d" % last_epoch
    if k == "StepLR":
        return k, "torch.optim.lr_scheduler.StepLR(opt, step_size=%d, gamma=%r%s)" % (
            r.randint(1, 10),
            fnum(r, 0.1, 0.99, 2),
            le,
        )
    if k == "MultiStepLR":
        ms = sorted(r.sample(range(1, 60), r.randint(1, 4)))
        if r.random() < 0.2:
            ms = ms + [ms[0]]
        return (
            k,
            f"torch.optim.lr_scheduler.MultiStepLR(opt, milestones={ms!r}, gamma={fnum(r, 0.1, 0.99, 2)!r}{le})",
        )
    if k == "ConstantLR":
        return k, "torch.optim.lr_scheduler.ConstantLR(opt, factor=%r, total_iters=%d%s)" % (
            r.choice([fnum(r, 0.05, 1.0, 2), 1.0, 0.0, 1.5]),
            r.randint(0, 20),
            le,
        )
    if k == "LinearLR":
        return (
            k,
            "torch.optim.lr_scheduler.LinearLR(opt, start_factor=%r, end_factor=%r, total_iters=%d%s)"
            % (
                r.choice([fnum(r, 0.05, 1.0, 2), 1.0]),
                r.choice([fnum(r, 0.0, 1.0, 2), 1.0]),
                r.randint(1, 30),
                le,
            ),
        )
    if k == "ExponentialLR":
        return k, f"torch.optim.lr_scheduler.ExponentialLR(opt, gamma={fnum(r, 0.8, 1.0, 3)!r}{le})"
    if k == "PolynomialLR":
        return k, "torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=%d, power=%r%s)" % (
            r.randint(1, 40),
            fnum(r, 0.3, 3.0, 2),
            le,
        )
    if k == "CosineAnnealingLR":
        return k, "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=%d, eta_min=%r%s)" % (
            r.randint(1, 40),
            r.choice([0.0, fnum(r, 0, 0.01, 4)]),
            le,
        )
    if k == "CosineAnnealingWarmRestarts":
        return (
            k,
            "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=%d, T_mult=%d, eta_min=%r%s)"
            % (r.randint(1, 15), r.randint(1, 3), r.choice([0.0, fnum(r, 0, 0.01, 4)]), le),
        )
    if k == "CyclicLR":
        mode = r.choice(["triangular", "triangular2", "exp_range"])
        sf = ""
        if r.random() < 0.2:
            sf = ", scale_fn=lambda x: 0.5 ** x, scale_mode={!r}".format(
                r.choice(["cycle", "iterations"])
            )
        cm = r.random() < 0.5
        mom = ""
        if cm:
            mom = f", base_momentum={lst(r, ng, lambda: fnum(r, 0.5, 0.8, 2))}, max_momentum={lst(r, ng, lambda: fnum(r, 0.8, 0.95, 2))}"
        sd = r.choice(["None", str(r.randint(1, 20))])
        return (
            k,
            "torch.optim.lr_scheduler.CyclicLR(opt, base_lr=%s, max_lr=%s, step_size_up=%d, step_size_down=%s, mode=%r, gamma=%r%s, cycle_momentum=%r%s%s)"
            % (
                lst(r, ng, lambda: fnum(r, 0.001, 0.01, 4)),
                lst(r, ng, lambda: fnum(r, 0.05, 0.5, 3)),
                r.randint(1, 20),
                sd,
                mode,
                fnum(r, 0.9, 1.0, 3),
                sf,
                cm,
                mom,
                le,
            ),
        )
    if k == "OneCycleLR":
        if r.random() < 0.5:
            tot = "total_steps=%d" % r.randint(5, 80)
        else:
            tot = "epochs=%d, steps_per_epoch=%d" % (r.randint(1, 8), r.randint(1, 10))
        cm = r.random() < 0.6
        return (
            k,
            "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr={}, {}, pct_start={!r}, anneal_strategy={!r}, cycle_momentum={!r}, div_factor={!r}, final_div_factor={!r}, three_phase={!r}{})".format(
                lst(r, ng, lambda: fnum(r, 0.05, 0.5, 3)),
                tot,
                r.choice([0.3, fnum(r, 0.05, 0.6, 2)]),
                r.choice(["cos", "linear"]),
                cm,
                r.choice([25.0, 10.0]),
                r.choice([1e4, 100.0]),
                r.random() < 0.4,
                le,
            ),
        )
    if k in ("LambdaLR", "MultiplicativeLR"):
        if r.random() < 0.4:
            lam = "[{}]".format(", ".join(r.choice(LAMBDAS) for _ in range(ng)))
        else:
            lam = r.choice(LAMBDAS)
        return k, f"torch.optim.lr_scheduler.{k}(opt, lr_lambda={lam}{le})"
    if k == "ReduceLROnPlateau":
        return (
            k,
            "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode=%r, factor=%r, patience=%d, threshold=%r, threshold_mode=%r, cooldown=%d, min_lr=%s, eps=%r)"
            % (
                r.choice(["min", "max"]),
                fnum(r, 0.1, 0.9, 2),
                r.randint(0, 5),
                r.choice([1e-4, 0.01, 0.1]),
                r.choice(["rel", "abs"]),
                r.randint(0, 3),
                lst(r, ng, lambda: r.choice([0, 0.001, 0.01])),
                r.choice([1e-8, 1e-3]),
            ),
        )
    if k == "SWALR":
        return (
            k,
            "torch.optim.swa_utils.SWALR(opt, swa_lr=%s, anneal_epochs=%d, anneal_strategy=%r%s)"
            % (
                lst(r, ng, lambda: fnum(r, 0.001, 0.1, 4)),
                r.randint(0, 10),
                r.choice(["cos", "linear"]),
                le,
            ),
        )
    if k == "SequentialLR":
        n = r.randint(2, 3)
        subs = []
        for _ in range(n):
            kk, c = gen_sched(r, optname, ng, allow_compose=False)
            while kk in ("ReduceLROnPlateau", "CyclicLR", "OneCycleLR"):
                kk, c = gen_sched(r, optname, ng, allow_compose=False)
            subs.append(c)
        ms = sorted(r.sample(range(1, 40), n - 1))
        return (
            k,
            "torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[{}], milestones={!r})".format(
                ", ".join(subs), ms
            ),
        )
    if k == "ChainedScheduler":
        n = r.randint(1, 3)
        subs = []
        for _ in range(n):
            kk, c = gen_sched(r, optname, ng, allow_compose=False)
            while kk in ("ReduceLROnPlateau", "CyclicLR", "OneCycleLR"):
                kk, c = gen_sched(r, optname, ng, allow_compose=False)
            subs.append(c)
        return k, "torch.optim.lr_scheduler.ChainedScheduler([{}]{})".format(
            ", ".join(subs), r.choice(["", ", optimizer=opt"])
        )


def gen(seed):
    r = random.Random(seed)
    tensor_lr = r.random() < 0.15
    optname, ng, stmts = gen_opt(r, tensor_lr)
    last_epoch = None
    if r.random() < 0.1:
        last_epoch = r.randint(0, 10)
        if r.random() < 0.5:
            stmts.append("for g in opt.param_groups: g['initial_lr'] = g['lr']")
    kind, ctor = gen_sched(r, optname, ng, last_epoch=last_epoch)
    stmts.append("sched = " + ctor)
    nsteps = r.randint(20, 120)
    for _i in range(nsteps):
        x = r.random()
        if kind == "ReduceLROnPlateau":
            m = r.choice([fnum(r, 0, 2, 2), 1.0, 0.5])
            if x < 0.05:
                stmts.append("_l(); opt.step(); sched.step(%r, epoch=%d)" % (m, r.randint(0, 50)))
            else:
                stmts.append(f"_l(); opt.step(); sched.step({m!r})")
        elif x < 0.03 and kind not in ("SequentialLR", "ChainedScheduler"):
            ep = (
                r.randint(0, 60)
                if kind != "CosineAnnealingWarmRestarts"
                else r.choice([r.randint(0, 60), fnum(r, 0, 60, 2)])
            )
            stmts.append(f"_l(); opt.step(); sched.step({ep!r})")
        elif x < 0.05:
            stmts.append("_g = sched.get_lr()")
        elif x < 0.07:
            stmts.append("_sd = sched.state_dict(); _keys = sorted(_sd)")
        elif x < 0.08:
            stmts.append("sched.load_state_dict(_sd)")
        elif x < 0.09:
            stmts.append("sched.step()")  # without opt.step
        else:
            stmts.append("_l(); opt.step(); sched.step()")
    return stmts


def compare(seed, verbose=False, g=None):
    stmts = (g or gen)(seed)
    tt = run_program(torch, stmts, OBS)
    mt = run_program(minitorch, stmts, OBS)
    for (s, e1, w1, o1), (_, e2, w2, o2) in zip(tt, mt, strict=False):
        if e1 and "Integer division with addcdiv" in e1[1] and e2 is None:
            return None  # torch bug: get_swa_multi_avg_fn on integer buffers
        if e1 != e2:
            if e1 and e2 and e1[0] == e2[0]:
                return "msg", s, e1, e2
            return "exc", s, e1, e2
        if w1 != w2:
            return "warn", s, w1, w2
        p1 = (
            [o1.pop(k, None) for k in ("params", "swa", "model", "_out", "_out2")]
            if isinstance(o1, dict)
            else None
        )
        p2 = (
            [o2.pop(k, None) for k in ("params", "swa", "model", "_out", "_out2")]
            if isinstance(o2, dict)
            else None
        )
        if not s.startswith("model = ") and not close(
            p1, p2, tol=(1e-4 if any("float32" in x for x in stmts) else PTOL)
        ):
            return "pval", s, (p1, p2), None
        if not close(o1, o2):
            diff = (
                {
                    k: (o1.get(k), o2.get(k))
                    for k in set(o1) | set(o2)
                    if not close(o1.get(k), o2.get(k))
                }
                if isinstance(o1, dict) and isinstance(o2, dict)
                else (o1, o2)
            )
            return "val", s, diff, None
        if e1 is not None and stmts.index(s) < len(stmts) and "sched = " in s:
            break
    return None


WEIRD = [
    "0",
    "-1",
    "1.5",
    "None",
    "'a'",
    "2",
    "0.0",
    "True",
    "[0.1]",
    "[0.1, 0.2, 0.3, 0.4]",
    "()",
    "-0.5",
    "100",
    "float('nan')",
    "float('inf')",
    "torch.tensor(0.5)",
    "2.0",
]


def gen_mut(seed):
    r = random.Random(seed)
    stmts = gen(seed)
    idx = next(i for i, s in enumerate(stmts) if s.startswith("sched = "))
    s = stmts[idx]
    args = list(re.finditer(r"(\w+)=([^,()\[\]]+|\[[^\]]*\])", s))
    args = [a for a in args if a.group(1) not in ("lambda", "opt", "optimizer")]
    for _ in range(r.randint(1, 2)):
        if not args:
            break
        a = r.choice(args)
        s = s[: a.start(2)] + r.choice(WEIRD) + s[a.end(2) :]
        args = list(re.finditer(r"(\w+)=([^,()\[\]]+|\[[^\]]*\])", s))
        args = [a for a in args if a.group(1) not in ("lambda", "opt", "optimizer")]
    stmts[idx] = s
    return stmts[: idx + 1 + r.randint(5, 40)]


PTOL = 1e-8

# ----------------------------------------------------------------------


AVG = [
    "None",
    "torch.optim.swa_utils.get_ema_avg_fn(%r)",
    "torch.optim.swa_utils.get_swa_avg_fn()",
    "lambda a, c, n: 0.5 * a + 0.5 * c",
    "lambda a, c, n: a + (c - a) / (n + 1)",
]
MULTI = [
    "torch.optim.swa_utils.get_ema_multi_avg_fn(%r)",
    "torch.optim.swa_utils.get_swa_multi_avg_fn()",
    "_mymulti",
]


def gen_swa(seed):
    r = random.Random(seed)
    dt = r.choice(["float64", "float64", "float32"])
    bn = r.choice(
        [
            "torch.nn.BatchNorm1d(4)",
            "torch.nn.BatchNorm1d(4, momentum=None)",
            "torch.nn.BatchNorm1d(4, affine=False)",
            "torch.nn.BatchNorm1d(4, track_running_stats=False)",
            "torch.nn.Identity()",
            "torch.nn.LayerNorm(4)",
        ]
    )
    S = []
    S.append(
        "def _mymulti(avg, cur, n):\n    for a, c in zip(avg, cur):\n        a.mul_(0.7).add_(c, alpha=0.3)"
    )
    S.append(
        f"model = torch.nn.Sequential(torch.nn.Linear(3, 4), {bn}, torch.nn.ReLU(), torch.nn.Linear(4, 2)).to(torch.{dt})"
    )
    S.append(
        "for i, p in enumerate(model.parameters()):\n    p.data.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float64) * 0.7 + i).reshape(p.shape) * 0.5)"
    )
    S.append(
        "data = [torch.cos(torch.arange(%d * 3, dtype=torch.float64) * %r + k).reshape(%d, 3).to(torch.%s) for k in range(%d)]"
        % (r.randint(2, 6), fnum(r, 0.1, 2.0, 2), r.randint(2, 6), dt, r.randint(1, 5))
    )
    S[-1] = S[-1].replace("%d * 3" % int(S[-1].split("arange(")[1].split(" ")[0]), "N * 3")
    n = r.randint(2, 6)
    S[-1] = (
        S[-1]
        .replace("N * 3", "%d * 3" % n)
        .replace(
            ".reshape({}, 3)".format(S[-1].split(".reshape(")[1].split(",")[0]),
            ".reshape(%d, 3)" % n,
        )
    )
    x = r.random()
    if x < 0.35:
        a = r.choice(AVG)
        kw = ", avg_fn=" + (a % fnum(r, 0.5, 0.99, 2) if "%r" in a else a)
    elif x < 0.7:
        m = r.choice(MULTI)
        kw = ", multi_avg_fn=" + (m % fnum(r, 0.5, 0.99, 2) if "%r" in m else m)
    else:
        kw = ""
    if r.random() < 0.05:
        kw = ", avg_fn=lambda a, c, n: a, multi_avg_fn=_mymulti"
    if r.random() < 0.05:
        kw += ", avg_fn=torch.optim.swa_utils.get_ema_avg_fn(1.5)"
    ub = r.random() < 0.5
    S.append(f"swa = torch.optim.swa_utils.AveragedModel(model{kw}, use_buffers={ub!r})")
    S.append(
        f"opt = torch.optim.SGD(model.parameters(), lr={fnum(r, 0.01, 0.2, 3)!r}, momentum=0.5)"
    )
    if r.random() < 0.7:
        S.append(
            "sched = torch.optim.swa_utils.SWALR(opt, swa_lr=%r, anneal_epochs=%d, anneal_strategy=%r)"
            % (fnum(r, 0.001, 0.1, 4), r.randint(0, 6), r.choice(["cos", "linear"]))
        )
    S.append(
        "def _train():\n    for x in data:\n        opt.zero_grad()\n        model(x).pow(2).mean().backward()\n        opt.step()"
    )
    for _i in range(r.randint(3, 15)):
        y = r.random()
        if y < 0.4:
            S.append("_train()")
        elif y < 0.7:
            S.append("swa.update_parameters(model)")
        elif y < 0.8:
            S.append("sched.step()")
        elif y < 0.85:
            S.append(
                "torch.optim.swa_utils.update_bn({}, swa)".format(
                    r.choice(
                        [
                            "data",
                            "[(x, x) for x in data]",
                            "[[x] for x in data]",
                            "iter(data)",
                            "[]",
                        ]
                    )
                )
            )
        elif y < 0.9:
            S.append("torch.optim.swa_utils.update_bn(data, model)")
        elif y < 0.95:
            S.append(
                "_out = swa(data[0]); model.eval(); swa.eval(); _out2 = swa(data[0]); swa.train(); model.train()"
            )
        else:
            S.append("swa.load_state_dict(swa.state_dict())")
    S.append("_out = swa(data[0])")
    return S


def main():
    args = H.cli(
        "schedulers",
        default_cases=250,
        extra=lambda p: p.add_argument("--gen", default="gen,gen_mut,gen_swa", help="%(default)s"),
    )
    rep = args.report
    gens = {"gen": gen, "gen_mut": gen_mut, "gen_swa": gen_swa}
    cmp = H.limited(compare, args.timeout, lambda e: ("timeout", str(e), None, None))
    for gname in args.gen.split(","):
        for seed in range(args.seed, args.seed + args.cases):
            rep.case()
            try:
                res = cmp(seed, g=gens[gname])
            except Exception:
                res = ("crash", traceback.format_exc()[-300:], None, None)
            if res:
                key = (gname, res[0], res[1].split("(")[0][:60] if res[0] != "crash" else "")
                rep.add(key, f"seed {seed}", str(res)[:1500])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
