"""Differential fuzzer: torch.nn.utils.

Parts (--part): clip (clip_grad_norm_/clip_grad_value_/get_total_norm/clip_grads_with_norm_ over
mixed dtypes, inf/nan/zero grads, norm types, error_if_nonfinite, foreach), misc
(parameters_to_vector/vector_to_parameters, fuse_conv_bn/fuse_linear_bn, stateless/
functional_call, skip_init, convert_conv*_weight_memory_format, ...), orth (parametrizations.
orthogonal maps), param (weight_norm/spectral_norm old and new, register_parametrization,
cached, remove_parametrizations with training steps), param2, prune (every pruning method,
global_unstructured, remove, is_pruned, masks/state dicts), rnn (pack/pad utilities), rnnmod (RNN
cells through utils), train (short training loops with parametrized/pruned layers and gradient
clipping). Values, state dict keys, exceptions. --cases is per part. Adapted from session 22's
h12 fuzzers (fz_*.py, harness.py).
"""

import collections
import random
import traceback
import warnings

import _harness as H
import numpy as np
import torch.nn.utils.fusion  # noqa: F401
import torch.nn.utils.prune  # noqa: F401
import torch.nn.utils.stateless  # noqa: F401
from _harness import minitorch, torch

# ----------------------------------------------------------------------

warnings.filterwarnings("ignore")

LIBS = {"torch": torch, "mt": minitorch}


def norm(x, lib):
    T = lib.Tensor
    if isinstance(x, T):
        d = x.detach()
        try:
            arr = d.cpu().numpy() if str(d.dtype) != "torch.bfloat16" else d.float().numpy()
        except Exception as e:
            arr = repr(e)
        return ("T", str(x.dtype), tuple(x.shape), arr, bool(x.requires_grad))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__ if type(x) in (list, tuple) else "seq", [norm(v, lib) for v in x])
    if isinstance(x, dict):
        return ("D", [(k, norm(v, lib)) for k, v in x.items()])
    if isinstance(x, float):
        return ("F", x)
    return x


def run(fn, lib, seed):
    lib.manual_seed(seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("OK", norm(fn(lib), lib))
    except Exception as e:
        msg = str(e).split("\n")[0]
        return ("EXC", type(e).__name__, msg)


def close(a, b, rtol, atol, path="", mism=None):
    if mism is None:
        mism = []
    if isinstance(a, tuple) and a and a[0] == "T":
        if not (isinstance(b, tuple) and b and b[0] == "T"):
            mism.append((path, "kind", a[:3], str(b)[:200]))
            return mism
        if a[1] != b[1]:
            mism.append((path, "dtype", a[1], b[1]))
        if a[2] != b[2]:
            mism.append((path, "shape", a[2], b[2]))
            return mism
        if a[4] != b[4]:
            mism.append((path, "requires_grad", a[4], b[4]))
        x, y = a[3], b[3]
        if isinstance(x, str) or isinstance(y, str):
            if x != y:
                mism.append((path, "valerr", x, y))
            return mism
        x = np.asarray(x, dtype=np.float64) if x.dtype != bool else x
        y = np.asarray(y, dtype=np.float64) if y.dtype != bool else y
        if x.dtype == bool or y.dtype == bool:
            if not np.array_equal(x, y):
                mism.append((path, "value", x, y))
        elif not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
            err = np.nanmax(np.abs(x - y)) if x.size else 0
            mism.append((path, "value", f"maxerr={err}", (x.ravel()[:6], y.ravel()[:6])))
        return mism
    if isinstance(a, tuple) and a and a[0] == "F" and isinstance(b, tuple) and b and b[0] == "F":
        if not np.allclose(a[1], b[1], rtol=rtol, atol=atol, equal_nan=True):
            mism.append((path, "float", a[1], b[1]))
        return mism
    if (
        isinstance(a, tuple)
        and isinstance(b, tuple)
        and len(a) == len(b)
        and a[:1] == b[:1]
        and a[:1] in (("list",), ("tuple",), ("seq",), ("D",))
    ):
        if a[0] == "D":
            ka = [k for k, _ in a[1]]
            kb = [k for k, _ in b[1]]
            if ka != kb:
                mism.append((path, "keys", ka, kb))
                return mism
            for (k, va), (_, vb) in zip(a[1], b[1], strict=False):
                close(va, vb, rtol, atol, path + "." + str(k), mism)
            return mism
        if len(a[1]) != len(b[1]):
            mism.append((path, "len", len(a[1]), len(b[1])))
            return mism
        for i, (va, vb) in enumerate(zip(a[1], b[1], strict=False)):
            close(va, vb, rtol, atol, path + f"[{i}]", mism)
        return mism
    if (
        isinstance(a, tuple)
        and isinstance(b, tuple)
        and len(a) == len(b)
        and not (a and a[0] in ("T", "F"))
    ):
        for i, (va, vb) in enumerate(zip(a, b, strict=False)):
            close(va, vb, rtol, atol, path + f"({i})", mism)
        return mism
    if a != b:
        if isinstance(a, str) and isinstance(b, str):
            a2 = a.replace("torch", "X")
            b2 = b.replace("minitorch", "X")
            if a2 == b2:
                return mism
        mism.append((path, "neq", str(a)[:300], str(b)[:300]))
    return mism


def diff(fn, seed, rtol=1e-5, atol=1e-6):
    rt = run(fn, torch, seed)
    rm = run(fn, minitorch, seed)
    if rt[0] != rm[0]:
        return [("status", rt if rt[0] == "EXC" else "OK", rm if rm[0] == "EXC" else "OK")]
    if rt[0] == "EXC":
        if rt[1:] != rm[1:]:
            return [("exc", rt[1:], rm[1:])]
        return []
    return close(rt[1], rm[1], rtol, atol)


class Stats:
    def __init__(self):
        self.n = 0
        self.bad = collections.defaultdict(list)

    def add(self, name, m, info):
        self.n += 1
        if m:
            self.bad[name].append((info, m[:3]))

    def report(self, k=3):
        print("cases", self.n, "bad kinds", len(self.bad))
        for name, lst in self.bad.items():
            print("==", name, len(lst))
            for info, m in lst[:k]:
                print("   ", info, m)


# ----------------------------------------------------------------------


def clip_make_params(lib, rng, nparams, dtypes, grad_kind, nograd_mask):
    ps = []
    for i in range(nparams):
        shape = tuple(rng.randint(0, 4) for _ in range(rng.randint(0, 3)))
        dt = getattr(lib, rng.choice(dtypes))
        p = lib.randn(shape, dtype=lib.float64).to(dt).requires_grad_()
        if not nograd_mask[i]:
            g = lib.randn(shape, dtype=lib.float64).to(dt) * 3
            if grad_kind == "inf" and g.numel():
                g.view(-1)[0] = float("inf")
            if grad_kind == "nan" and g.numel():
                g.view(-1)[0] = float("nan")
            if grad_kind == "zero":
                g = g * 0
            p.grad = g
        ps.append(p)
    return ps


def clip_case(seed):
    rng = random.Random(seed)
    n = rng.choice([0, 1, 2, 3, 5])
    dtypes = rng.choice(
        [["float64"], ["float32"], ["float32", "float64"], ["float16", "float32"], ["bfloat16"]]
    )
    grad_kind = rng.choice(["normal"] * 4 + ["inf", "nan", "zero"])
    nog = [rng.random() < 0.2 for _ in range(n)]
    norm_type = rng.choice([1, 2, 2.0, float("inf"), float("-inf"), 0.5, 3, 0, "inf"])
    max_norm = rng.choice([0, 0.1, 1.0, 5, 100.0, -1.0])
    eif = rng.random() < 0.3
    foreach = rng.choice([None, True, False])
    form = rng.choice(["list", "gen", "single", "tuple"])
    fn_kind = rng.choice(["clip_norm"] * 3 + ["total", "with_norm", "value", "clip_norm_old"])
    clipv = rng.choice([0.5, 1, 0, -1.0, 10])

    def f(lib):
        ps = clip_make_params(lib, random.Random(seed + 1), n, dtypes, grad_kind, nog)
        U = lib.nn.utils

        def P():
            if form == "list":
                return ps
            if form == "tuple":
                return tuple(ps)
            if form == "gen":
                return (p for p in ps)
            return ps[0] if ps else ps

        out = None
        if fn_kind == "clip_norm":
            out = U.clip_grad_norm_(
                P(), max_norm, norm_type=norm_type, error_if_nonfinite=eif, foreach=foreach
            )
        elif fn_kind == "clip_norm_old":
            out = U.clip_grad_norm(P(), max_norm, norm_type, eif)
        elif fn_kind == "total":
            gs = [p.grad for p in ps if p.grad is not None]
            if form == "single" and gs:
                gs = gs[0]
            out = U.get_total_norm(gs, norm_type, eif, foreach)
        elif fn_kind == "with_norm":
            gs = [p.grad for p in ps if p.grad is not None]
            tn = U.get_total_norm(gs, norm_type) if gs else lib.tensor(0.0)
            out = U.clip_grads_with_norm_(P(), max_norm, tn, foreach)
        else:
            out = U.clip_grad_value_(P(), clipv, foreach=foreach)
        return [out, [p.grad for p in ps], [p for p in ps]]

    return f, dict(
        n=n,
        dtypes=dtypes,
        gk=grad_kind,
        nt=norm_type,
        mn=max_norm,
        eif=eif,
        fe=foreach,
        form=form,
        k=fn_kind,
    )


def clip_one(s, rep):
    f, info = clip_case(s)
    dt = info["dtypes"]
    tol = (
        (1e-2, 1e-2)
        if ("float16" in dt or "bfloat16" in dt)
        else ((1e-5, 1e-5) if "float32" in dt else (1e-10, 1e-12))
    )
    m = diff(f, s, *tol)
    key = (
        info["k"]
        + ":"
        + (m[0][0] if m and isinstance(m[0][0], str) else "")
        + ":"
        + (str(m[0][1])[:40] if m else "")
    )
    if m:
        rep.add(("clip", key), (s, info), m[:3])


# ----------------------------------------------------------------------


def misc_case(seed):
    rng = random.Random(seed)
    kind = rng.choice(["fcall", "fcall", "fuse_conv", "fuse_lin", "p2v", "v2p"])
    strict = rng.random() < 0.5
    tie = rng.choice([True, False])
    variant = rng.randint(0, 7)
    tr = rng.random() < 0.5

    def f(lib):
        nn = lib.nn
        res = []
        if kind == "fcall":

            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.l1 = nn.Linear(3, 3)
                    self.l2 = nn.Linear(3, 3)
                    self.l2.weight = self.l1.weight
                    self.bn = nn.BatchNorm1d(3)

                def forward(self, x):
                    return self.bn(self.l2(self.l1(x)))

            m = M()
            if not tr:
                m.eval()
            x = lib.randn(4, 3, dtype=lib.float32)
            pd = {"l1.weight": lib.randn(3, 3, requires_grad=True)}
            if variant & 1:
                pd["l2.weight"] = lib.randn(3, 3)
            if variant & 2:
                pd["bn.running_mean"] = lib.randn(3)
            if variant & 4:
                pd["extra"] = lib.zeros(1)
            if variant == 7:
                pd = ({"l1.weight": lib.ones(3, 3)}, {"l1.weight": lib.zeros(3, 3)})
            fc = lib.func.functional_call if seed % 2 else nn.utils.stateless.functional_call
            out = fc(m, pd, (x,), tie_weights=tie, strict=strict)
            res.append(out)
            res.append(dict(m.state_dict()))
            if out.requires_grad:
                out.sum().backward()
                res.append(pd["l1.weight"].grad if isinstance(pd, dict) else None)
        elif kind == "fuse_conv":
            conv = nn.Conv2d(2, 3, 2, bias=bool(variant & 1), groups=1).double().eval()
            bn = nn.BatchNorm2d(3, affine=bool(variant & 2)).double()
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2)
            bn.eval()
            tp = bool(variant & 4)
            if tp:
                conv = nn.ConvTranspose2d(2, 3, 2, bias=bool(variant & 1)).double().eval()
            fused = nn.utils.fusion.fuse_conv_bn_eval(conv, bn, transpose=tp)
            x = lib.randn(1, 2, 4, 4, dtype=lib.float64)
            res += [fused(x), bn(conv(x)), dict(fused.state_dict()), type(fused).__name__]
            res.append(
                [fused.weight.requires_grad, fused.bias.requires_grad, type(fused.bias).__name__]
            )
        elif kind == "fuse_lin":
            lin = nn.Linear(4, 3, bias=bool(variant & 1)).double().eval()
            bn = nn.BatchNorm1d(3 if not variant & 4 else 1, affine=bool(variant & 2)).double()
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.5, 2)
            bn.eval()
            fused = nn.utils.fusion.fuse_linear_bn_eval(lin, bn)
            x = lib.randn(5, 4, dtype=lib.float64)
            res += [fused(x), bn(lin(x)), dict(fused.state_dict())]
        elif kind == "p2v":
            ps = [
                lib.randn(2, 3, requires_grad=True),
                lib.randn(4, dtype=lib.float64, requires_grad=True),
            ]
            if variant & 1:
                ps.append(lib.randn(3, 2).t())
            if variant & 2:
                ps.append(lib.randn(0))
            v = nn.utils.parameters_to_vector(ps)
            res.append(v)
            v.sum().backward()
            res.append([p.grad for p in ps[:2]])
            res.append(type(v.grad_fn).__name__)
        else:
            ps = [nn.Parameter(lib.randn(2, 3)), nn.Parameter(lib.randn(4))]
            if variant & 1:
                ps.append(lib.randn(3, 2).t())
            n = 10 + (variant & 1) * 6 + (variant >> 1) - 1
            v = lib.arange(float(n)) if not variant & 4 else lib.arange(n)
            nn.utils.vector_to_parameters(v, ps)
            res.append(ps)
            nn.utils.vector_to_parameters(v.tolist() if variant == 6 else v, ps)
        return res

    return f, dict(kind=kind, strict=strict, tie=tie, variant=variant, tr=tr)


def misc_one(s, rep):
    f, info = misc_case(s)
    m = diff(f, s, 1e-5, 1e-6)
    key = (
        info["kind"]
        + ":"
        + (m[0][0] if m and isinstance(m[0][0], str) else "")
        + ":"
        + (str(m[0][1])[:60] if m else "")
    )
    if m:
        rep.add(("misc", key), (s, info), m[:3])


# ----------------------------------------------------------------------


def orth_case(seed):
    rng = random.Random(seed)
    shape = rng.choice([(3, 3), (2, 4), (4, 2), (2, 3, 3), (2, 2, 3), (1, 1), (5, 5)])
    omap = rng.choice([None, "matrix_exp", "cayley", "householder"])
    triv = rng.random() < 0.6
    assign = rng.random() < 0.5
    dt = rng.choice(["float64", "float32"])

    def f(lib):
        nn = lib.nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = nn.Parameter(lib.randn(*shape, dtype=getattr(lib, dt)))

        m = M()
        nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
        res = [m.weight, dict(m.state_dict()), repr(m)]
        (
            m.weight * lib.arange(float(m.weight.numel()), dtype=m.weight.dtype).reshape(shape)
        ).sum().backward()
        res.append([p.grad for p in m.parameters()])
        if assign:
            q = (
                lib.linalg.qr(lib.randn(*shape, dtype=getattr(lib, dt)))[0]
                if shape[-2] >= shape[-1]
                else lib.linalg.qr(lib.randn(*shape, dtype=getattr(lib, dt)).mT)[0].mT
            )
            with lib.no_grad():
                m.weight = q
            res += [m.weight, dict(m.state_dict())]
        return res

    return f, dict(shape=shape, omap=omap, triv=triv, assign=assign, dt=dt)


def orth_one(s, rep):
    f, info = orth_case(s)
    tol = (1e-4, 1e-5) if info["dt"] == "float32" else (1e-8, 1e-10)
    m = diff(f, s, *tol)
    key = (
        str(info["omap"])
        + str(info["triv"])
        + ":"
        + (m[0][0] if m and isinstance(m[0][0], str) else "")
        + ":"
        + (str(m[0][1])[:60] if m else "")
    )
    if m:
        rep.add(("orth", key), (s, info), m[:3])


# ----------------------------------------------------------------------


def param_sd(m):
    return {k: v for k, v in m.state_dict().items()}


def param_case(seed):
    rng = random.Random(seed)
    kind = rng.choice(["wn_old", "wn_new", "sn_old", "sn_new", "orth", "reg", "reg2"])
    mod = rng.choice(["linear", "conv1d", "conv2d", "convT"])
    dim = rng.choice([0, 1, -1, None, 0, 2])
    npi = rng.choice([1, 2, 0, 3])
    eps = rng.choice([1e-12, 1e-3])
    omap = rng.choice([None, "matrix_exp", "cayley", "householder"])
    triv = rng.random() < 0.7
    shp = (rng.randint(1, 5), rng.randint(1, 5))
    train_steps = rng.randint(0, 3)
    evalmode = rng.random() < 0.4
    dt = rng.choice(["float64", "float32"])
    leave = rng.random() < 0.5

    def f(lib):
        nn = lib.nn
        if mod == "linear":
            m = nn.Linear(*shp)
        elif mod == "conv1d":
            m = nn.Conv1d(shp[0], shp[1], 2)
        elif mod == "conv2d":
            m = nn.Conv2d(shp[0], shp[1], (2, 1))
        else:
            m = nn.ConvTranspose1d(shp[0], shp[1], 2)
        m = m.to(getattr(lib, dt))
        res = []
        if kind == "wn_old":
            nn.utils.weight_norm(
                m, "weight", dim=dim if dim is not None else 0
            ) if dim != 2 or mod != "linear" else nn.utils.weight_norm(m, dim=dim)
        elif kind == "wn_new":
            nn.utils.parametrizations.weight_norm(m, "weight", dim=dim)
        elif kind == "sn_old":
            nn.utils.spectral_norm(m, n_power_iterations=npi, eps=eps, dim=dim)
        elif kind == "sn_new":
            nn.utils.parametrizations.spectral_norm(m, n_power_iterations=npi, eps=eps, dim=dim)
        elif kind == "orth":
            nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
        elif kind in ("reg", "reg2"):

            class Sym(nn.Module):
                def forward(self, X):
                    return (
                        X + X.transpose(-1, -2)
                        if X.dim() == 2 and X.shape[0] == X.shape[1]
                        else X * 2
                    )

                def right_inverse(self, X):
                    return X / 2 if not (X.dim() == 2 and X.shape[0] == X.shape[1]) else X.triu()

            class Scale(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("s", lib.tensor(3.0))

                def forward(self, X):
                    return X * self.s

            P = nn.utils.parametrize
            P.register_parametrization(m, "weight", Sym())
            if kind == "reg2":
                P.register_parametrization(m, "weight", Scale(), unsafe=rng.random() < 0.5)
                P.register_parametrization(m, "bias", Scale())
            res.append(P.is_parametrized(m))
            res.append(P.is_parametrized(m, "weight"))
            res.append(P.is_parametrized(m, "bias"))
            res.append(type(m).__name__)
        res.append(list(param_sd(m).keys()))
        res.append(param_sd(m))
        res.append([n for n, _ in m.named_parameters()])
        res.append([n for n, _ in m.named_buffers()])
        if mod == "linear":
            x = lib.randn(2, shp[0], dtype=getattr(lib, dt))
        elif mod in ("conv1d", "convT"):
            x = lib.randn(2, shp[0], 3, dtype=getattr(lib, dt))
        else:
            x = lib.randn(2, shp[0], 3, 2, dtype=getattr(lib, dt))
        if evalmode:
            m.eval()
        for _ in range(train_steps):
            y = m(x)
            y.pow(2).sum().backward()
            res.append(y)
            res.append([p.grad for p in m.parameters()])
        res.append(m.weight)
        res.append(param_sd(m))
        m.eval()
        res.append(m(x))
        res.append(param_sd(m))
        if kind in ("reg", "reg2", "orth", "wn_new", "sn_new"):
            P = nn.utils.parametrize
            with P.cached():
                a = m.weight
                b = m.weight
                res.append(a is b)
            P.remove_parametrizations(m, "weight", leave_parametrized=leave)
            res.append(list(param_sd(m).keys()))
            res.append(param_sd(m))
            res.append(type(m).__name__)
            res.append(P.is_parametrized(m))
        elif kind == "wn_old":
            nn.utils.remove_weight_norm(m)
            res.append(param_sd(m))
        elif kind == "sn_old":
            nn.utils.remove_spectral_norm(m)
            res.append(param_sd(m))
        return res

    return f, dict(
        kind=kind,
        mod=mod,
        dim=dim,
        npi=npi,
        eps=eps,
        omap=omap,
        triv=triv,
        shp=shp,
        steps=train_steps,
        ev=evalmode,
        dt=dt,
        leave=leave,
    )


def param_one(s, rep):
    f, info = param_case(s)
    tol = (1e-4, 1e-5) if info["dt"] == "float32" else (1e-8, 1e-10)
    m = diff(f, s, *tol)
    key = (
        info["kind"]
        + ":"
        + (m[0][0] if m and isinstance(m[0][0], str) else "")
        + ":"
        + (str(m[0][1])[:60] if m else "")
    )
    if m:
        rep.add(("param", key), (s, info), m[:3])


# ----------------------------------------------------------------------


def param2_case(seed):
    rng = random.Random(seed)
    variant = rng.randint(0, 15)
    n = rng.randint(2, 4)
    k = rng.randint(1, 4)
    dt = rng.choice(["float64", "float32"])

    def f(lib):
        nn = lib.nn
        P = nn.utils.parametrize

        class Split(nn.Module):
            def forward(self, a, b):
                return a * b

            def right_inverse(self, X):
                return X.sign() * X.abs().sqrt(), X.abs().sqrt()

        class Plus(nn.Module):
            def forward(self, X):
                return X + 1

            def right_inverse(self, X):
                return X - 1

        class NoInv(nn.Module):
            def forward(self, X):
                return X.exp()

        m = nn.Linear(n, k).to(getattr(lib, dt))
        res = []
        if variant & 1:
            P.register_parametrization(m, "weight", Split())
            res.append(sorted(k_ for k_, _ in m.named_parameters()))
        else:
            P.register_parametrization(m, "weight", Plus())
        if variant & 2:
            P.register_parametrization(m, "weight", Plus())
        if variant & 4:
            P.register_parametrization(m, "bias", NoInv())
        res.append(list(m.state_dict().keys()))
        res.append(dict(m.state_dict()))
        res.append(repr(m.parametrizations) if hasattr(m, "parametrizations") else None)
        res.append(repr(m))
        x = lib.randn(3, n, dtype=getattr(lib, dt))
        y = m(x)
        y.sum().backward()
        res += [y, [p.grad for p in m.parameters()]]
        if variant & 8:
            with lib.no_grad():
                m.weight = lib.ones(k, n, dtype=getattr(lib, dt)) * 4
            res.append(dict(m.state_dict()))
            res.append(m.weight)
            try:
                m.bias = lib.zeros(k, dtype=getattr(lib, dt))
            except Exception as e:
                res.append((type(e).__name__, str(e)))
        m2 = nn.Linear(n, k).to(getattr(lib, dt))
        if variant & 1:
            P.register_parametrization(m2, "weight", Split())
        else:
            P.register_parametrization(m2, "weight", Plus())
        if variant & 2:
            P.register_parametrization(m2, "weight", Plus())
        if variant & 4:
            P.register_parametrization(m2, "bias", NoInv())
        r = m2.load_state_dict(m.state_dict())
        res.append(str(r))
        res.append(m2(x))
        try:
            P.remove_parametrizations(m, "weight", leave_parametrized=bool(variant & 2))
        except Exception as e:
            res.append((type(e).__name__, str(e)))
        res.append(dict(m.state_dict()))
        res.append(repr(m))
        return res

    return f, dict(variant=variant, n=n, k=k, dt=dt)


def param2_one(s, rep):
    f, info = param2_case(s)
    tol = (1e-5, 1e-5) if info["dt"] == "float32" else (1e-10, 1e-12)
    m = diff(f, s, *tol)
    key = (
        str(info["variant"])
        + ":"
        + (m[0][0] if m and isinstance(m[0][0], str) else "")
        + ":"
        + (str(m[0][1])[:60] if m else "")
    )
    if m:
        rep.add(("param2", key), (s, info), m[:3])


# ----------------------------------------------------------------------


def prune_case(seed):
    rng = random.Random(seed)
    kind = rng.choice(
        ["random_u", "l1_u", "ln_s", "random_s", "global", "custom", "identity", "multi"]
    )
    amount = rng.choice([0, 1, 2, 5, 0.0, 0.3, 0.5, 1.0, 0.99, 1.5, -1, 100, 3.0])
    n = rng.choice([1, 2, float("inf"), -float("inf"), "fro", 0])
    dim = rng.choice([0, 1, -1, 2])
    mod = rng.choice(["linear", "conv2d"])
    name = rng.choice(["weight", "weight", "bias"])
    remove = rng.random() < 0.4
    ties = rng.random() < 0.3 and False

    def f(lib):
        nn = lib.nn
        pr = nn.utils.prune
        m = nn.Linear(4, 3) if mod == "linear" else nn.Conv2d(2, 3, 2)
        m2 = nn.Linear(3, 5)
        if ties:
            with lib.no_grad():
                m.weight.copy_((m.weight * 4).round())
                m2.weight.copy_((m2.weight * 4).round())
        res = []
        if kind == "random_u":
            pr.random_unstructured(m, name, amount)
        elif kind == "l1_u":
            pr.l1_unstructured(m, name, amount)
        elif kind == "ln_s":
            pr.ln_structured(m, name, amount, n, dim)
        elif kind == "random_s":
            pr.random_structured(m, name, amount, dim)
        elif kind == "identity":
            pr.identity(m, name)
        elif kind == "custom":
            mask = lib.rand(getattr(m, name).shape) > 0.5
            pr.custom_from_mask(m, name, mask.float() if seed % 2 else mask)
        elif kind == "global":
            pr.global_unstructured(
                [(m, "weight"), (m2, "weight"), (m, "bias")],
                pruning_method=pr.L1Unstructured,
                amount=amount,
            )
        elif kind == "multi":
            pr.random_unstructured(m, name, 0.3)
            pr.l1_unstructured(m, name, amount)
            res.append(repr(m._forward_pre_hooks).count("Pruning"))
        res.append(list(m.state_dict().keys()))
        res.append(dict(m.state_dict()))
        res.append([k for k, _ in m.named_parameters()])
        res.append([k for k, _ in m.named_buffers()])
        res.append(pr.is_pruned(m))
        res.append(pr.is_pruned(m2))
        res.append(getattr(m, name))
        if kind == "global":
            res.append(dict(m2.state_dict()))
        x = lib.randn(2, 4) if mod == "linear" else lib.randn(1, 2, 3, 3)
        y = m(x)
        y.sum().backward()
        res.append(y)
        res.append([p.grad for p in m.parameters()])
        if remove:
            pr.remove(m, name)
            res.append(list(m.state_dict().keys()))
            res.append(dict(m.state_dict()))
            res.append(pr.is_pruned(m))
        return res

    return f, dict(
        kind=kind, amount=amount, n=n, dim=dim, mod=mod, name=name, remove=remove, ties=ties
    )


def prune_one(s, rep):
    f, info = prune_case(s)
    m = diff(f, s, 1e-5, 1e-6)
    key = (
        info["kind"]
        + ":"
        + (m[0][0] if m and isinstance(m[0][0], str) else "")
        + ":"
        + (str(m[0][1])[:60] if m else "")
    )
    if m:
        rep.add(("prune", key), (s, info), m[:3])


# ----------------------------------------------------------------------


def rnn_case(seed):
    rng = random.Random(seed)
    B = rng.randint(1, 4)
    T = rng.randint(1, 5)
    feat = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
    lens = [rng.randint(0 if rng.random() < 0.05 else 1, T) for _ in range(B)]
    if rng.random() < 0.5:
        lens = sorted(lens, reverse=True)
    if rng.random() < 0.05:
        lens[0] = T + 1
    bf = rng.random() < 0.5
    es = rng.random() < 0.5
    lform = rng.choice(["list", "tensor", "tensor32", "tuple"])
    pv = rng.choice([0.0, -1.5, 7])
    tl = rng.choice([None, None, T, T + 2, max(1, T - 1)])
    kind = rng.choice(
        ["pack_pad", "pack_pad", "pad_seq", "pack_seq", "unpack", "unpad", "fields", "to"]
    )
    side = rng.choice(["right", "left"])
    dt = rng.choice(["float64", "float32", "int64"])

    def f(lib):
        def L():
            return (
                lens
                if lform == "list"
                else tuple(lens)
                if lform == "tuple"
                else lib.tensor(lens)
                if lform == "tensor"
                else lib.tensor(lens, dtype=lib.int32)
            )

        R = lib.nn.utils.rnn
        if kind in ("pad_seq", "pack_seq", "unpack", "unpad"):
            seqs = [lib.randn((n,) + feat, dtype=lib.float64) for n in lens]
            if dt == "int64":
                seqs = [(s * 5).long() for s in seqs]
            else:
                seqs = [s.to(getattr(lib, dt)).requires_grad_() for s in seqs]
            if kind == "pad_seq":
                out = R.pad_sequence(seqs, batch_first=bf, padding_value=pv, padding_side=side)
                res = [out]
            elif kind == "pack_seq":
                ps = R.pack_sequence(seqs, enforce_sorted=es)
                res = [
                    list(ps),
                    R.pad_packed_sequence(ps, batch_first=bf, padding_value=pv, total_length=tl),
                ]
                out = ps.data
            elif kind == "unpack":
                ps = R.pack_sequence(seqs, enforce_sorted=es)
                u = R.unpack_sequence(ps)
                res = [u]
                out = lib.cat([x.reshape(-1) for x in u]) if u else None
            else:
                padded = R.pad_sequence(seqs, batch_first=bf, padding_value=pv)
                u = R.unpad_sequence(padded, L(), batch_first=bf)
                res = [u]
                out = lib.cat([x.reshape(-1) for x in u])
            if dt != "int64" and out is not None and out.requires_grad:
                w = lib.randn(out.shape, dtype=lib.float64).to(out.dtype)
                (out * w).sum().backward()
                res.append([s.grad for s in seqs])
            return res
        x = lib.randn(((B, T) if bf else (T, B)) + feat, dtype=lib.float64)
        if dt == "int64":
            x = (x * 5).long()
        else:
            x = x.to(getattr(lib, dt)).requires_grad_()
        ps = R.pack_padded_sequence(x, L(), batch_first=bf, enforce_sorted=es)
        res = [list(ps)]
        if kind == "fields":
            res.append([ps.is_cuda, type(ps).__name__, len(ps), ps.batch_sizes.device.type])
            q = ps.double()
            res.append(list(q))
            q = ps.float()
            res.append(list(q))
            q = ps.long()
            res.append(list(q))
            q = ps.cpu()
            res.append(list(q))
            res.append(ps.to("cpu") is ps)
            res.append(ps.to(lib.float64) is ps)
        if kind == "to":
            q = ps.to(dtype=lib.float16)
            res.append(list(q))
            q = ps.to(lib.zeros(1, dtype=lib.float64))
            res.append(list(q))
        pad, lo = R.pad_packed_sequence(ps, batch_first=bf, padding_value=pv, total_length=tl)
        res.append([pad, lo])
        if dt != "int64":
            w = lib.randn(pad.shape, dtype=lib.float64).to(pad.dtype)
            (pad * w).sum().backward()
            res.append(x.grad)
            res.append(type(pad.grad_fn).__name__ if pad.grad_fn else None)
            res.append(type(ps.data.grad_fn).__name__ if ps.data.grad_fn else None)
        return res

    return f, dict(
        B=B,
        T=T,
        feat=feat,
        lens=lens,
        bf=bf,
        es=es,
        lform=lform,
        pv=pv,
        tl=tl,
        kind=kind,
        side=side,
        dt=dt,
    )


def rnn_one(s, rep):
    f, info = rnn_case(s)
    tol = (1e-5, 1e-5) if info["dt"] == "float32" else (1e-12, 1e-12)
    m = diff(f, s, *tol)
    key = (
        info["kind"]
        + ":"
        + (m[0][0] if m and isinstance(m[0][0], str) else "")
        + ":"
        + (str(m[0][1])[:60] if m else "")
    )
    if m:
        rep.add(("rnn", key), (s, info), m[:3])


# ----------------------------------------------------------------------


def rnnmod_case(seed):
    rng = random.Random(seed)
    cell = rng.choice(["RNN", "LSTM", "GRU"])
    B = rng.randint(1, 4)
    T = rng.randint(1, 4)
    lens = sorted([rng.randint(1, T) for _ in range(B)], reverse=rng.random() < 0.5)
    bf = rng.random() < 0.5
    bi = rng.random() < 0.5
    nl = rng.randint(1, 2)
    proj = cell == "LSTM" and rng.random() < 0.3
    h0 = rng.random() < 0.4

    def f(lib):
        kw = dict(batch_first=bf, bidirectional=bi, num_layers=nl)
        if proj:
            kw["proj_size"] = 2
        m = getattr(lib.nn, cell)(3, 4, **kw).double()
        x = lib.randn(((B, T) if bf else (T, B)) + (3,), dtype=lib.float64, requires_grad=True)
        ps = lib.nn.utils.rnn.pack_padded_sequence(x, lens, batch_first=bf, enforce_sorted=False)
        D = 2 if bi else 1
        hs = 2 if proj else 4
        args = ()
        if h0:
            h = lib.randn(D * nl, B, hs, dtype=lib.float64)
            args = ((h, lib.randn(D * nl, B, 4, dtype=lib.float64)),) if cell == "LSTM" else (h,)
        out, hn = m(ps, *args)
        pad, lo = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=bf)
        hn = list(hn) if isinstance(hn, tuple) else [hn]
        loss = (pad * lib.randn(pad.shape, dtype=lib.float64)).sum() + sum(
            (h * lib.randn(h.shape, dtype=lib.float64)).sum() for h in hn
        )
        loss.backward()
        return [list(out), pad, lo, hn, x.grad, [p.grad for p in m.parameters()]]

    return f, dict(cell=cell, B=B, T=T, lens=lens, bf=bf, bi=bi, nl=nl, proj=proj, h0=h0)


def rnnmod_one(s, rep):
    f, info = rnnmod_case(s)
    m = diff(f, s, 1e-8, 1e-10)
    key = (
        info["cell"]
        + ":"
        + (m[0][0] if m and isinstance(m[0][0], str) else "")
        + ":"
        + (str(m[0][1])[:60] if m else "")
    )
    if m:
        rep.add(("rnnmod", key), (s, info), m[:3])


# ----------------------------------------------------------------------


def train_case(seed):
    rng = random.Random(seed)
    kind = rng.choice(
        ["orth", "sn_new", "sn_old", "wn_new", "wn_old", "prune", "orth_cayley", "orth_hh"]
    )
    n, k = rng.randint(2, 5), rng.randint(2, 5)
    steps = rng.randint(1, 5)
    cached = rng.random() < 0.3

    def f(lib):
        nn = lib.nn
        m = nn.Sequential(nn.Linear(n, k), nn.Tanh(), nn.Linear(k, 2)).double()
        U = nn.utils
        if kind == "orth":
            U.parametrizations.orthogonal(m[0])
        elif kind == "orth_cayley":
            U.parametrizations.orthogonal(m[0], orthogonal_map="cayley")
        elif kind == "orth_hh":
            U.parametrizations.orthogonal(m[0], orthogonal_map="householder")
        elif kind == "sn_new":
            U.parametrizations.spectral_norm(m[0])
            U.parametrizations.spectral_norm(m[2], n_power_iterations=2)
        elif kind == "sn_old":
            U.spectral_norm(m[0])
            U.spectral_norm(m[2], n_power_iterations=2)
        elif kind == "wn_new":
            U.parametrizations.weight_norm(m[0])
            U.parametrizations.weight_norm(m[2], dim=None)
        elif kind == "wn_old":
            U.weight_norm(m[0])
            U.weight_norm(m[2], dim=1)
        else:
            import importlib

            pr = importlib.import_module(lib.__name__ + ".nn.utils.prune")
            pr.random_unstructured(m[0], "weight", 0.4)
            pr.l1_unstructured(m[2], "bias", 1)
        opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.5)
        x = lib.randn(6, n, dtype=lib.float64)
        y = lib.randn(6, 2, dtype=lib.float64)
        res = []
        for _ in range(steps):
            opt.zero_grad()
            if cached:
                with U.parametrize.cached():
                    loss = ((m(x) - y) ** 2).mean() + m(x).abs().mean()
            else:
                loss = ((m(x) - y) ** 2).mean()
            loss.backward()
            U.clip_grad_norm_(m.parameters(), 0.5)
            opt.step()
            res.append(loss)
        res.append(dict(m.state_dict()))
        m.eval()
        res.append(m(x))
        return res

    return f, dict(kind=kind, n=n, k=k, steps=steps, cached=cached)


def train_one(s, rep):
    f, info = train_case(s)
    m = diff(f, s, 1e-7, 1e-9)
    key = (
        info["kind"]
        + ":"
        + (m[0][0] if m and isinstance(m[0][0], str) else "")
        + ":"
        + (str(m[0][1])[:60] if m else "")
    )
    if m:
        rep.add(("train", key), (s, info), m[:3])


PARTS = ["clip", "misc", "orth", "param", "param2", "prune", "rnn", "rnnmod", "train"]


def main():
    args = H.cli(
        "nn_utils",
        default_cases=150,
        extra=lambda p: p.add_argument(
            "--part", default=",".join(PARTS), help="default %(default)s"
        ),
    )
    rep = args.report
    for part in args.part.split(","):
        one = H.limited(
            globals()[part + "_one"],
            args.timeout,
            lambda e, part=part: rep.add((part, "timeout"), str(e)),
        )
        for s in range(args.seed, args.seed + args.cases):
            rep.case()
            try:
                one(s, rep)
            except Exception:
                rep.add((part, "harness"), f"seed {s}", traceback.format_exc()[-400:])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
