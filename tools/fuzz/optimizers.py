"""Differential fuzzer: optimizers, bit for bit.

For each optimizer (SGD, Adam, AdamW, Adamax, NAdam, RAdam, RMSprop, Adagrad, Adadelta, ASGD,
Rprop) with random hyper-parameters, dtype (--dtypes f32,f64[,f16,bf16]) and mode (--modes
none,foreach,differentiable,lr_tensor), 20 steps on three parameters with identical random
gradients; after each step the parameters and every optimizer state entry must agree bit for bit
(kinds: param@step, state:<key>@step, statekeys, statedtype). --cases is per (optimizer, dtype,
mode). Adapted from session 23's optbits fuzzer.
"""

# ruff: noqa: UP031  (code adapted as-is from the session fuzzers)

import random

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Bit-for-bit optimizer trajectories: torch vs minitorch. Usage: fuzz.py [ncases] [seed] [names]
TD = {
    "f32": (torch.float32, minitorch.float32),
    "f64": (torch.float64, minitorch.float64),
    "f16": (torch.float16, minitorch.float16),
    "bf16": (torch.bfloat16, minitorch.bfloat16),
}


def to_m(t, mdt):
    return minitorch.tensor(t.detach().double().numpy()).to(mdt)


def bits(x):
    if isinstance(x, torch.Tensor):
        a = x.detach().double().numpy()
    elif isinstance(x, minitorch.Tensor):
        a = x.detach().double().numpy()
    else:
        a = np.float64(x)
    return np.asarray(a, np.float64).view(np.int64)


def kw_for(name, r):
    def c(*xs):
        return r.choice(xs)

    if name == "SGD":
        mom = c(0, 0, 0.9, 0.5)
        nest = mom > 0 and r.random() < 0.4
        return dict(
            lr=c(0.1, 0.01, 0.003),
            momentum=mom,
            dampening=0 if nest else c(0, 0, 0.1),
            weight_decay=c(0, 0, 1e-2),
            nesterov=nest,
            maximize=c(False, True),
        )
    if name in ("Adam", "AdamW"):
        d = dict(
            lr=c(1e-3, 1e-2, 0.05),
            betas=c((0.9, 0.999), (0.8, 0.99), (0.0, 0.9)),
            eps=c(1e-8, 1e-6),
            weight_decay=c(0, 0, 1e-2),
            amsgrad=c(False, True),
            maximize=c(False, True),
        )
        if name == "Adam" and r.random() < 0.3:
            d["decoupled_weight_decay"] = True
        return d
    if name == "Adamax":
        return dict(
            lr=c(2e-3, 1e-2),
            betas=c((0.9, 0.999), (0.8, 0.99)),
            eps=c(1e-8, 1e-6),
            weight_decay=c(0, 1e-2),
            maximize=c(False, True),
        )
    if name == "NAdam":
        return dict(
            lr=c(2e-3, 1e-2),
            momentum_decay=c(4e-3, 1e-2),
            weight_decay=c(0, 1e-2),
            decoupled_weight_decay=c(False, True),
            maximize=c(False, True),
        )
    if name == "RAdam":
        return dict(
            lr=c(1e-3, 1e-2),
            weight_decay=c(0, 1e-2),
            decoupled_weight_decay=c(False, True),
            maximize=c(False, True),
        )
    if name == "RMSprop":
        return dict(
            lr=c(1e-2, 1e-3),
            alpha=c(0.99, 0.9),
            eps=c(1e-8, 1e-6),
            weight_decay=c(0, 1e-2),
            momentum=c(0, 0.9),
            centered=c(False, True),
            maximize=c(False, True),
        )
    if name == "Adagrad":
        return dict(
            lr=c(1e-2, 0.1),
            lr_decay=c(0, 1e-3),
            weight_decay=c(0, 1e-2),
            initial_accumulator_value=c(0, 0.1),
            eps=c(1e-10, 1e-6),
            maximize=c(False, True),
        )
    if name == "Adadelta":
        return dict(
            lr=c(1.0, 0.5),
            rho=c(0.9, 0.95),
            eps=c(1e-6, 1e-4),
            weight_decay=c(0, 1e-2),
            maximize=c(False, True),
        )
    if name == "ASGD":
        return dict(
            lr=c(1e-2, 1e-3),
            lambd=c(1e-4, 1e-3),
            alpha=c(0.75, 0.5),
            t0=c(1e6, 5.0),
            weight_decay=c(0, 1e-2),
            maximize=c(False, True),
        )
    if name == "Rprop":
        return dict(
            lr=c(1e-2, 1e-3),
            etas=c((0.5, 1.2), (0.3, 1.5)),
            step_sizes=c((1e-6, 50), (1e-4, 1.0)),
            maximize=c(False, True),
        )
    raise KeyError(name)


NAMES = [
    "SGD",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "RAdam",
    "RMSprop",
    "Adagrad",
    "Adadelta",
    "ASGD",
    "Rprop",
]


def run_case(name, kw, dt, steps, seed, mode=None):
    g = torch.Generator().manual_seed(seed)
    tdt, mdt = TD[dt]
    shapes = [(5,), (3, 7), (40,)]
    tp = [torch.randn(s, generator=g, dtype=torch.float64).to(tdt).requires_grad_() for s in shapes]
    mp = [to_m(t, mdt).requires_grad_() for t in tp]
    kw = dict(kw)
    mkw = dict(kw)
    if mode == "lr_tensor":
        kw["lr"] = torch.tensor(kw["lr"])
        mkw["lr"] = minitorch.tensor(mkw["lr"])
    if mode in ("foreach", "differentiable"):
        kw[mode] = True
        mkw[mode] = True
    try:
        to = getattr(torch.optim, name)(tp, **kw)
    except Exception as e:
        return ("skip", repr(e))
    mo = getattr(minitorch.optim, name)(mp, **mkw)
    for k in range(steps):
        for a, b in zip(tp, mp, strict=False):
            gr = (torch.randn(a.shape, generator=g, dtype=torch.float64) * [1, 1e-3, 10][k % 3]).to(
                tdt
            )
            a.grad = gr
            b.grad = to_m(gr, mdt)
        to.step()
        mo.step()
        for i, (a, b) in enumerate(zip(tp, mp, strict=False)):
            if not np.array_equal(bits(a), bits(b)):
                return (
                    "param",
                    k,
                    i,
                    float(
                        (a.detach().double() - torch.from_numpy(b.detach().double().numpy()))
                        .abs()
                        .max()
                    ),
                )
            ts, ms = to.state[a], mo.state[b]
            if set(ts) != set(ms):
                return ("statekeys", sorted(ts), sorted(ms))
            for key in ts:
                if isinstance(ts[key], torch.Tensor) and ts[key].dtype != getattr(
                    torch, str(ms[key].dtype).split(".")[-1]
                ):
                    return ("statedtype", key, k)
                if not np.array_equal(bits(ts[key]), bits(ms[key])):
                    return ("state:" + key, k, i)
    return ("ok",)


def main():
    def extra(p):
        p.add_argument("--only", help="comma-separated optimizers (default all)")
        p.add_argument("--dtypes", default="f32,f64", help="default %(default)s")
        p.add_argument("--modes", default="none,foreach,lr_tensor", help="default %(default)s")
        p.add_argument("--steps", type=int, default=20, help="default %(default)s")

    args = H.cli("optimizers", default_cases=20, extra=extra)
    rep = args.report
    rc = H.limited(run_case, args.timeout, lambda e: ("timeout", str(e)))
    for name in args.only.split(",") if args.only else NAMES:
        for dt in args.dtypes.split(","):
            for mode in args.modes.split(","):
                mode = None if mode in ("", "none") else mode
                for i in range(args.cases):
                    s = args.seed * 1000 + i
                    r = random.Random(s)
                    kw = kw_for(name, r)
                    res = rc(name, kw, dt, args.steps, s, mode)
                    rep.case()
                    if res[0] in ("ok", "skip"):
                        continue
                    at = ""
                    if res[0] != "statekeys" and len(res) > 1 and isinstance(res[1], int):
                        at = "@%d" % res[1]
                    rep.add((name, dt, mode, res[0] + at), f"seed {s} {kw}", str(res)[:300])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
