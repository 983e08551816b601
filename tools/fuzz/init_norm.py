"""Differential fuzzer: nn.init, dropout, normalization layers, layer construction.

Parts (--part): init (every nn.init function on random shapes/dtypes/gains/modes/generators:
values drawn from the same stream, errors, warnings), drop (Dropout*/AlphaDropout modules and
functionals, train/eval, inplace, p edge cases: masks and values from the same seed), norm
(BatchNorm*/InstanceNorm*/LayerNorm/GroupNorm/LocalResponseNorm/RMSNorm modules: outputs,
running stats, momentum None, eval, gradients), fnorm (the functional norms in every dtype),
layers (construction of Linear/Conv*/ConvTranspose*/Bilinear/Embedding/RNN*/lazy layers with a
seed: parameter shapes, dtypes and values of the default initialization). --cases is per part.
Adapted from session 23's init fuzzers (fz_*.py).
"""

# ruff: noqa: UP031  (code adapted as-is from the session fuzzers)

import random
import traceback
import warnings

import _harness as H
import numpy as np
from _harness import mt, torch

# ----------------------------------------------------------------------


# ----------------------------------------------------------------------


def init_run(lib, case, seed):
    fn, shape, dt, kw, use_gen, strided, rg = case
    lib.manual_seed(seed)
    kw = dict(kw)
    if use_gen:
        g = lib.Generator().manual_seed(seed + 7)
        kw["generator"] = g
    t = (
        lib.empty(shape, dtype=getattr(lib, dt)).fill_(3.0)
        if dt != "int64"
        else lib.zeros(shape, dtype=lib.int64)
    )
    if strided and t.dim() >= 2:
        t = t.transpose(0, 1)
    if rg:
        t.requires_grad_(True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = (
                getattr(lib.nn.init, fn)(t, **kw)
                if fn not in ("calculate_gain", "_calculate_fan_in_and_fan_out")
                else None
            )
            if fn == "calculate_gain":
                out = lib.nn.init.calculate_gain(*kw["args"])
                return ("ok", out, None, [str(x.message) for x in w], lib.rand(2))
            if fn == "_calculate_fan_in_and_fan_out":
                out = lib.nn.init._calculate_fan_in_and_fan_out(t)
                return ("ok", out, None, [str(x.message) for x in w], lib.rand(2))
        except Exception as e:
            return (
                "err",
                type(e).__name__,
                str(e).replace("minitorch", "torch"),
                [str(x.message) for x in w],
                lib.rand(2),
            )
    nxt = lib.rand(2) if not use_gen else (g.initial_seed(), lib.rand(2, generator=g))
    return (
        "ok",
        out is t,
        t,
        [str(x.message).replace("minitorch", "torch") for x in w],
        nxt,
        t.grad_fn is None,
        t.requires_grad,
        t.is_leaf,
        t.dtype,
        t.stride(),
    )


init_FNS = [
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
    "calculate_gain",
    "_calculate_fan_in_and_fan_out",
]
init_GEN = {
    "uniform_",
    "normal_",
    "trunc_normal_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
}


def init_gen_case(r):
    fn = r.choice(init_FNS)
    nd = r.choice([0, 1, 2, 2, 2, 3, 4, 5])
    shape = tuple(r.choice([0, 1, 2, 3, 4, 5, 7, 20]) if r.random() < 0.9 else 0 for _ in range(nd))
    if r.random() < 0.7:
        shape = tuple(max(1, s) for s in shape)
    dt = r.choice(
        ["float32", "float32", "float64", "float16", "bfloat16"]
        + (["int64"] if r.random() < 0.05 else [])
    )
    kw = {}
    if fn == "uniform_":
        kw = dict(a=r.uniform(-2, 0), b=r.uniform(0, 2))
    if fn == "normal_":
        kw = dict(mean=r.uniform(-1, 1), std=r.choice([0.0, 1.0, 0.3, 2.5]))
    if fn == "trunc_normal_":
        kw = dict(
            mean=r.uniform(-1, 1),
            std=r.choice([1.0, 0.3, 2.5]),
            a=r.uniform(-3, 0),
            b=r.uniform(0, 3),
        )
    if fn == "constant_":
        kw = dict(val=r.choice([0.5, -2, 3]))
    if fn == "dirac_":
        kw = dict(groups=r.choice([1, 1, 2, 3]))
    if fn.startswith("xavier"):
        kw = dict(gain=r.choice([1.0, 0.5, 2.0]))
    if fn.startswith("kaiming"):
        kw = dict(
            a=r.choice([0, 0.1, 2.0]),
            mode=r.choice(["fan_in", "fan_out"]),
            nonlinearity=r.choice(
                [
                    "leaky_relu",
                    "relu",
                    "selu",
                    "linear",
                    "tanh",
                    "sigmoid",
                    "conv2d",
                    "conv_transpose1d",
                ]
            ),
        )
        if r.random() < 0.05:
            kw["mode"] = "fan_avg"
    if fn == "orthogonal_":
        kw = dict(gain=r.choice([1.0, 0.5, 2.0]))
    if fn == "sparse_":
        kw = dict(sparsity=r.choice([0.0, 0.1, 0.5, 0.9, 1.0]), std=r.choice([0.01, 1.0]))
    if fn == "calculate_gain":
        nl = r.choice(
            [
                "linear",
                "conv1d",
                "conv2d",
                "conv3d",
                "conv_transpose1d",
                "conv_transpose2d",
                "conv_transpose3d",
                "sigmoid",
                "tanh",
                "relu",
                "leaky_relu",
                "selu",
                "foo",
            ]
        )
        param = r.choice([None, None, 0.2, 1, True, "x", -1, 0])
        kw = dict(args=(nl, param) if param is not None or r.random() < 0.5 else (nl,))
    use_gen = fn in init_GEN and r.random() < 0.4
    strided = r.random() < 0.2
    rg = r.random() < 0.3 and dt != "int64"
    return fn, shape, dt, kw, use_gen, strided, rg


def init_tonp(x):
    if x.dtype in (torch.bfloat16,) or "bfloat16" in str(x.dtype):
        x = x.float()
    return np.asarray(x.detach().numpy())


def init_compare(a, b):
    if a[0] != b[0]:
        return [("status", a[:3], b[:3])]
    if a[0] == "err":
        out = []
        if a[1] != b[1] or a[2] != b[2]:
            out.append(("errmsg", a[1:3], b[1:3]))
        if a[3] != b[3]:
            out.append(("warn", a[3], b[3]))
        if not np.array_equal(a[4].numpy(), init_tonp(b[4])):
            out.append(("stream_err",))
        return out
    out = []
    if isinstance(a[2], torch.Tensor):
        tv, mv = init_tonp(a[2]), init_tonp(b[2])
        if tv.shape != mv.shape:
            out.append(("shape",))
        elif not np.array_equal(tv, mv, equal_nan=True):
            d = np.abs(tv.astype(float) - mv.astype(float))
            out.append(("value", float(np.nanmax(d)) if d.size else 0, int((d > 0).sum()), tv.size))
        if a[1] != b[1]:
            out.append(("identity",))
        if a[3] != b[3]:
            out.append(("warn", a[3], b[3]))
        tn, mn = a[4], b[4]
        if isinstance(tn, tuple):
            if not np.array_equal(tn[1].numpy(), init_tonp(mn[1])):
                out.append(("stream_gen",))
        elif not np.array_equal(tn.numpy(), init_tonp(mn)):
            out.append(("stream",))
        if a[5:8] != b[5:8]:
            out.append(("flags", a[5:8], b[5:8]))
        if a[9] != b[9]:
            out.append(("stride", a[9], b[9]))
    else:
        if a[1] != b[1] and not (isinstance(a[1], float) and abs(a[1] - b[1]) < 1e-15):
            out.append(("ret", a[1], b[1]))
        if a[3] != b[3]:
            out.append(("warn", a[3], b[3]))
    return out


# ----------------------------------------------------------------------


drop_MODS = [
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "AlphaDropout",
    "FeatureAlphaDropout",
]
drop_FNS = {
    "Dropout": "dropout",
    "Dropout1d": "dropout1d",
    "Dropout2d": "dropout2d",
    "Dropout3d": "dropout3d",
    "AlphaDropout": "alpha_dropout",
    "FeatureAlphaDropout": "feature_alpha_dropout",
}


def drop_gen(r):
    m = r.choice(drop_MODS)
    nd = r.randint(0, 6)
    shape = tuple(r.choice([1, 2, 3, 4, 17]) for _ in range(nd))
    p = r.choice([0.0, 1.0, 0.5, 0.2, 0.9, 0.33])
    inplace = r.random() < 0.3
    training = r.random() < 0.85
    use_fn = r.random() < 0.4
    dt = r.choice(["float32", "float64", "float64", "float16", "bfloat16"])
    strided = r.random() < 0.2
    rg = r.random() < 0.6
    return m, shape, p, inplace, training, use_fn, dt, strided, rg


def drop_run(lib, case, seed):
    m, shape, p, inplace, training, use_fn, dt, strided, rg = case
    lib.manual_seed(seed)
    x0 = (
        lib.randn(shape, dtype=getattr(lib, dt)) if shape else lib.randn((), dtype=getattr(lib, dt))
    )
    if strided and x0.dim() >= 2:
        x0 = x0.transpose(0, -1)
    x = x0.clone().requires_grad_(rg) if dt in ("float32", "float64", "float16", "bfloat16") else x0
    y_in = x * 1 if (rg and inplace) else x
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            if use_fn:
                y = getattr(lib.nn.functional, drop_FNS[m])(
                    y_in, p=p, training=training, inplace=inplace
                )
            else:
                mod = getattr(lib.nn, m)(p=p, inplace=inplace)
                if not training:
                    mod.eval()
                y = mod(y_in)
        except Exception as e:
            return (
                "err",
                type(e).__name__,
                str(e).replace("minitorch", "torch"),
                [str(a.message) for a in w],
                lib.rand(2),
            )
    g = None
    if rg and y.requires_grad:
        lib.manual_seed(seed + 1)
        go = lib.randn(y.shape, dtype=y.dtype)
        try:
            (g,) = lib.autograd.grad(y, x, go)
        except Exception as e:
            g = ("err", type(e).__name__, str(e))
    return (
        "ok",
        y.detach(),
        [str(a.message).replace("minitorch", "torch") for a in w],
        lib.rand(2),
        g,
        y is y_in,
        str(y.dtype).split(".")[-1],
        y.stride() if hasattr(y, "stride") else None,
    )


def drop_tonp(x):
    return np.asarray(
        x.detach().float().numpy() if "bfloat16" in str(x.dtype) else x.detach().numpy()
    )


def drop_compare(a, b):
    if a[0] != b[0]:
        return [("status", a[1:3], b[1:3])]
    if a[0] == "err":
        o = []
        if a[1:3] != b[1:3]:
            o.append(("errmsg", a[1:3], b[1:3]))
        if a[3] != b[3]:
            o.append(("warn", a[3], b[3]))
        return o
    o = []
    ta, tb = drop_tonp(a[1]), drop_tonp(b[1])
    if ta.shape != tb.shape:
        o.append(("shape", ta.shape, tb.shape))
    elif not np.array_equal(ta, tb, equal_nan=True):
        d = np.abs(ta.astype(float) - tb.astype(float))
        o.append(("value", float(np.nanmax(d)), int((d > 0).sum()), ta.size))
    if a[2] != b[2]:
        o.append(("warn", a[2], b[2]))
    if not np.array_equal(drop_tonp(a[3]), drop_tonp(b[3])):
        o.append(("stream",))
    if a[5] != b[5]:
        o.append(("identity", a[5], b[5]))
    if a[6] != b[6]:
        o.append(("dtype", a[6], b[6]))
    ga, gb = a[4], b[4]
    if (ga is None) != (gb is None):
        o.append(("gradnone", ga is None, gb is None))
    elif ga is not None:
        if isinstance(ga, tuple) or isinstance(gb, tuple):
            if str(ga) != str(gb):
                o.append(("graderr", str(ga)[:200], str(gb)[:200]))
        elif not np.array_equal(drop_tonp(ga), drop_tonp(gb), equal_nan=True):
            o.append(
                (
                    "grad",
                    float(
                        np.nanmax(np.abs(drop_tonp(ga).astype(float) - drop_tonp(gb).astype(float)))
                    ),
                )
            )
    return o


# ----------------------------------------------------------------------

warnings.simplefilter("ignore")


def norm_gen(r):
    k = r.choice(
        [
            "BatchNorm1d",
            "BatchNorm2d",
            "BatchNorm3d",
            "InstanceNorm1d",
            "InstanceNorm2d",
            "InstanceNorm3d",
            "GroupNorm",
            "LayerNorm",
            "RMSNorm",
            "LocalResponseNorm",
        ]
    )
    C = r.randint(1, 4)
    N = r.choice([1, 1, 2, 3])
    sp = {"1d": r.choice([0, 1]), "2d": 2, "3d": 3}
    a = {}
    if k.startswith("BatchNorm") or k.startswith("InstanceNorm"):
        nsp = sp[k[-2:]] if k != "BatchNorm1d" else r.choice([0, 1])
        if k.startswith("InstanceNorm") and k == "InstanceNorm1d":
            nsp = 1
        shape = [N, C] + [r.randint(1, 3) for _ in range(nsp)]
        if k.startswith("InstanceNorm") and r.random() < 0.3:
            shape = shape[1:]
        a = dict(
            num_features=C,
            affine=r.random() < 0.5,
            track_running_stats=r.random() < 0.5,
            momentum=r.choice([0.1, None, 0.5]),
            eps=r.choice([1e-5, 1e-3]),
        )
    elif k == "GroupNorm":
        g = r.randint(1, 3)
        C = g * r.randint(1, 2)
        shape = [N, C] + [r.randint(1, 3) for _ in range(r.randint(0, 2))]
        a = dict(num_groups=g, num_channels=C, affine=r.random() < 0.7, eps=r.choice([1e-5, 1e-3]))
    elif k in ("LayerNorm", "RMSNorm"):
        shape = [r.randint(1, 3) for _ in range(r.randint(1, 4))]
        nd = r.randint(1, len(shape))
        a = dict(normalized_shape=shape[-nd:], elementwise_affine=r.random() < 0.7)
        if k == "LayerNorm":
            a["bias"] = r.random() < 0.7
            a["eps"] = r.choice([1e-5, 1e-3])
        else:
            a["eps"] = r.choice([None, 1e-5, 0.1])
    else:
        shape = [N, C] + [r.randint(1, 3) for _ in range(r.randint(1, 3))]
        a = dict(
            size=r.randint(1, 4),
            alpha=r.choice([1e-4, 0.5]),
            beta=r.choice([0.75, 1.5]),
            k=r.choice([1.0, 2.0]),
        )
    steps = r.randint(1, 3)
    evalmode = r.random() < 0.3
    return k, tuple(shape), a, steps, evalmode


def norm_run(lib, case, seed):
    k, shape, a, steps, evalmode = case
    lib.manual_seed(seed)
    try:
        m = getattr(lib.nn, k)(dtype=lib.float64, **a)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.randn(p.shape, dtype=lib.float64))
        outs = []
        for s in range(steps):
            if evalmode and s == steps - 1:
                m.eval()
            x = lib.randn(shape, dtype=lib.float64, requires_grad=True)
            y = m(x)
            go = lib.randn(y.shape, dtype=lib.float64)
            ins = [x] + [p for p in m.parameters()]
            gs = lib.autograd.grad(y, ins, go, create_graph=True, allow_unused=True)
            # second order: grad of sum(g*g) wrt x
            ss = sum(
                ((g * g).sum() for g in gs if g is not None and g.requires_grad),
                lib.zeros((), dtype=lib.float64),
            )
            g2 = lib.autograd.grad(ss, [x], allow_unused=True)[0] if ss.requires_grad else None
            outs.append([y.detach()] + [g for g in gs] + [g2])
        st = m.state_dict()
        return ("ok", outs, st)
    except Exception as e:
        return (
            "err",
            type(e).__name__,
            str(e).replace("minitorch", "torch"),
            traceback.format_exc()[-500:],
        )


def norm_npy(x):
    return None if x is None else np.asarray(x.detach().numpy())


def norm_compare(a, b):
    if a[0] != b[0]:
        return [("status", a[1:3], b[1:4])]
    if a[0] == "err":
        return [] if a[1:3] == b[1:3] else [("errmsg", a[1:3], b[1:3])]
    o = []
    for s, (ta, tb) in enumerate(zip(a[1], b[1], strict=False)):
        for j, (u, v) in enumerate(zip(ta, tb, strict=False)):
            u, v = norm_npy(u), norm_npy(v)
            if (u is None) != (v is None):
                o.append(("none", s, j, u is None, v is None))
                continue
            if u is None:
                continue
            if u.shape != v.shape:
                o.append(("shape", s, j, u.shape, v.shape))
                continue
            if not np.allclose(u, v, rtol=1e-9, atol=1e-10, equal_nan=True):
                o.append(
                    (
                        "value" if j == 0 else ("grad2" if j == len(ta) - 1 else "grad"),
                        s,
                        j,
                        float(np.nanmax(np.abs(u - v))),
                    )
                )
    if list(a[2]) != list(b[2]):
        o.append(("keys", list(a[2]), list(b[2])))
    else:
        for key in a[2]:
            u, v = a[2][key].numpy(), b[2][key].numpy()
            if u.shape != v.shape or not np.allclose(u, v, rtol=1e-9, atol=1e-12):
                o.append(("state", key, u, v))
            elif str(a[2][key].dtype).split(".")[-1] != str(b[2][key].dtype).split(".")[-1]:
                o.append(("statedtype", key))
    return o


# ----------------------------------------------------------------------

warnings.simplefilter("ignore")


def fnorm_gen(r):
    k = r.choice(
        [
            "batch_norm",
            "instance_norm",
            "layer_norm",
            "group_norm",
            "rms_norm",
            "local_response_norm",
            "normalize",
        ]
    )
    dt = r.choice(["float32", "float16", "bfloat16", "float64"])
    N, C = r.randint(1, 3), r.randint(1, 4)
    sp = [r.randint(1, 4) for _ in range(r.randint(0, 3))]
    shape = [N, C] + sp
    opts = dict(
        w=r.random() < 0.6,
        b=r.random() < 0.6,
        rs=r.random() < 0.5,
        training=r.random() < 0.6,
        momentum=r.choice([0.1, 0.9]),
        eps=r.choice([1e-5, 1e-2]),
        nd=r.randint(1, len(shape)),
        g=r.choice([1, C]),
        size=r.randint(1, 4),
        pdtype=r.choice(["same", "float32"]),
        p=r.choice([1, 2, 3.0]),
        dim=r.randint(-len(shape), len(shape) - 1),
        strided=r.random() < 0.2,
        scale=r.choice([1, 100, 1e-3]),
    )
    return k, dt, tuple(shape), opts


def fnorm_run(lib, case, seed):
    k, dt, shape, o = case
    F = lib.nn.functional
    lib.manual_seed(seed)
    d = getattr(lib, dt)
    pd = d if o["pdtype"] == "same" else lib.float32
    x = (lib.randn(shape, dtype=lib.float32) * o["scale"] + 0.5).to(d)
    if o["strided"] and x.dim() >= 3:
        x = x.transpose(1, 2).contiguous().transpose(1, 2)
    x.requires_grad_(True)
    C = shape[1]
    try:
        if k == "batch_norm":
            rm = lib.randn(C, dtype=pd) if o["rs"] else None
            rv = lib.rand(C, dtype=pd) + 0.5 if o["rs"] else None
            w = lib.randn(C, dtype=pd).requires_grad_() if o["w"] else None
            b = lib.randn(C, dtype=pd).requires_grad_() if o["b"] else None
            y = F.batch_norm(
                x,
                rm,
                rv,
                w,
                b,
                training=o["training"] or not o["rs"],
                momentum=o["momentum"],
                eps=o["eps"],
            )
            extra = [rm, rv]
        elif k == "instance_norm":
            rm = lib.randn(C, dtype=pd) if o["rs"] else None
            rv = lib.rand(C, dtype=pd) + 0.5 if o["rs"] else None
            w = lib.randn(C, dtype=pd).requires_grad_() if o["w"] else None
            b = lib.randn(C, dtype=pd).requires_grad_() if o["b"] else None
            y = F.instance_norm(
                x,
                rm,
                rv,
                w,
                b,
                use_input_stats=o["training"] or not o["rs"],
                momentum=o["momentum"],
                eps=o["eps"],
            )
            extra = [rm, rv]
        elif k in ("layer_norm", "rms_norm"):
            ns = shape[-o["nd"] :]
            w = lib.randn(ns, dtype=pd).requires_grad_() if o["w"] else None
            b = lib.randn(ns, dtype=pd).requires_grad_() if o["b"] else None
            if k == "layer_norm":
                y = F.layer_norm(x, ns, w, b, eps=o["eps"])
            else:
                y = F.rms_norm(x, ns, w, eps=o["eps"] if o["b"] else None)
            extra = []
        elif k == "group_norm":
            w = lib.randn(C, dtype=pd).requires_grad_() if o["w"] else None
            b = lib.randn(C, dtype=pd).requires_grad_() if o["b"] else None
            y = F.group_norm(x, o["g"], w, b, eps=o["eps"])
            extra = []
        elif k == "local_response_norm":
            y = F.local_response_norm(x, o["size"], alpha=1e-2, beta=0.75, k=1.0)
            extra = []
        else:
            y = F.normalize(x, p=o["p"], dim=o["dim"], eps=o["eps"])
            extra = []
        go = lib.randn(y.shape, dtype=lib.float32).to(y.dtype)
        ins = [x] + [
            t
            for t in ([w, b] if k not in ("local_response_norm", "normalize") else [])
            if t is not None
        ]
        gs = lib.autograd.grad(y, ins, go, allow_unused=True)
        return ("ok", y, list(gs), extra)
    except Exception as e:
        return (
            "err",
            type(e).__name__,
            str(e).replace("minitorch", "torch"),
            traceback.format_exc()[-400:],
        )


def fnorm_npy(x):
    if x is None:
        return None
    x = x.detach()
    return np.asarray(x.float().numpy() if "bfloat16" in str(x.dtype) else x.numpy()).astype(
        np.float64
    ), str(x.dtype).split(".")[-1]


fnorm_TOL = {"float64": 1e-9, "float32": 2e-4, "float16": 2e-2, "bfloat16": 6e-2}


def fnorm_compare(a, b, dt):
    if a[0] != b[0]:
        return [("status", a[1:3], b[1:4])]
    if a[0] == "err":
        return [] if a[1:3] == b[1:3] else [("errmsg", a[1:3], b[1:3])]
    o = []
    items = (
        [("y", a[1], b[1])]
        + [("g%d" % i, u, v) for i, (u, v) in enumerate(zip(a[2], b[2], strict=False))]
        + [("s%d" % i, u, v) for i, (u, v) in enumerate(zip(a[3], b[3], strict=False))]
    )
    for name, u, v in items:
        u, v = fnorm_npy(u), fnorm_npy(v)
        if (u is None) != (v is None):
            o.append(("none", name))
            continue
        if u is None:
            continue
        if u[1] != v[1]:
            o.append(("dtype", name, u[1], v[1]))
        if u[0].shape != v[0].shape:
            o.append(("shape", name))
            continue
        tol = fnorm_TOL[dt] * (10 if name != "y" else 1)
        sc = max(1.0, np.abs(u[0]).max() if u[0].size else 1)
        if not np.allclose(u[0], v[0], rtol=tol, atol=tol * sc, equal_nan=True):
            o.append(("value", name, float(np.nanmax(np.abs(u[0] - v[0])))))
    return o


# ----------------------------------------------------------------------


warnings.simplefilter("ignore")


def layers_tn(x):
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def layers_mn(x):
    return np.asarray(x.detach().numpy())


def layers_gen_case(r):
    dt = r.choice(["float32", "float64", "float16", "bfloat16", "default64", "default16"])
    kind = r.choice(
        [
            "Linear",
            "Bilinear",
            "Conv1d",
            "Conv2d",
            "Conv3d",
            "ConvT1d",
            "ConvT2d",
            "ConvT3d",
            "Embedding",
            "EmbeddingBag",
            "BatchNorm1d",
            "BatchNorm2d",
            "InstanceNorm1d",
            "InstanceNorm2d",
            "LayerNorm",
            "GroupNorm",
            "RMSNorm",
            "PReLU",
            "RNN",
            "LSTM",
            "GRU",
            "RNNCell",
            "LSTMCell",
            "GRUCell",
            "MHA",
            "TEL",
            "TDL",
            "LazyLinear",
            "LazyConv2d",
            "LazyConvT1d",
            "LazyBatchNorm1d",
            "LazyInstanceNorm2d",
            "Transformer",
        ]
    )
    a = {}
    if kind == "Linear":
        a = dict(in_features=r.randint(0, 7), out_features=r.randint(0, 7), bias=r.random() < 0.7)
    elif kind == "Bilinear":
        a = dict(
            in1_features=r.randint(1, 5),
            in2_features=r.randint(1, 5),
            out_features=r.randint(1, 5),
            bias=r.random() < 0.7,
        )
    elif kind.startswith("Conv"):
        g = r.choice([1, 1, 2, 3])
        a = dict(
            in_channels=g * r.randint(1, 3),
            out_channels=g * r.randint(1, 3),
            kernel_size=r.randint(1, 3),
            groups=g,
            bias=r.random() < 0.7,
        )
        if kind.startswith("ConvT"):
            a["dilation"] = r.randint(1, 2)
        else:
            a["padding_mode"] = r.choice(["zeros", "reflect", "replicate", "circular"])
            a["padding"] = r.randint(0, 1)
    elif kind == "Embedding":
        n = r.randint(1, 9)
        a = dict(num_embeddings=n, embedding_dim=r.randint(1, 5))
        if r.random() < 0.5:
            a["padding_idx"] = r.randint(-n, n - 1)
        if r.random() < 0.3:
            a["max_norm"] = 1.0
    elif kind == "EmbeddingBag":
        n = r.randint(1, 9)
        a = dict(
            num_embeddings=n, embedding_dim=r.randint(1, 5), mode=r.choice(["sum", "mean", "max"])
        )
        if r.random() < 0.4:
            a["padding_idx"] = r.randint(-n, n - 1)
    elif kind.startswith("BatchNorm") or kind.startswith("InstanceNorm"):
        a = dict(
            num_features=r.randint(1, 5),
            affine=r.random() < 0.6,
            track_running_stats=r.random() < 0.6,
        )
        if r.random() < 0.3:
            a["momentum"] = None
    elif kind == "LayerNorm":
        a = dict(
            normalized_shape=[r.randint(1, 4)] * r.randint(1, 2),
            elementwise_affine=r.random() < 0.7,
            bias=r.random() < 0.7,
        )
    elif kind == "GroupNorm":
        g = r.randint(1, 3)
        a = dict(num_groups=g, num_channels=g * r.randint(1, 3), affine=r.random() < 0.7)
    elif kind == "RMSNorm":
        a = dict(normalized_shape=r.randint(1, 5), elementwise_affine=r.random() < 0.7)
    elif kind == "PReLU":
        a = dict(num_parameters=r.randint(1, 4), init=r.choice([0.25, 0.1]))
    elif kind in ("RNN", "LSTM", "GRU"):
        a = dict(
            input_size=r.randint(1, 4),
            hidden_size=r.randint(1, 4),
            num_layers=r.randint(1, 3),
            bias=r.random() < 0.8,
            batch_first=r.random() < 0.5,
            bidirectional=r.random() < 0.5,
        )
        if kind == "LSTM" and r.random() < 0.3:
            a["proj_size"] = max(1, a["hidden_size"] - 1) if a["hidden_size"] > 1 else 0
        if kind == "RNN":
            a["nonlinearity"] = r.choice(["tanh", "relu"])
    elif kind.endswith("Cell"):
        a = dict(input_size=r.randint(1, 4), hidden_size=r.randint(1, 4), bias=r.random() < 0.8)
    elif kind == "MHA":
        h = r.randint(1, 3)
        a = dict(
            embed_dim=h * r.randint(1, 3),
            num_heads=h,
            bias=r.random() < 0.7,
            add_bias_kv=r.random() < 0.3,
            add_zero_attn=r.random() < 0.3,
            batch_first=r.random() < 0.5,
        )
        if r.random() < 0.4:
            a["kdim"] = r.randint(1, 4)
            a["vdim"] = r.randint(1, 4)
    elif kind in ("TEL", "TDL"):
        h = r.randint(1, 2)
        a = dict(
            d_model=h * 2,
            nhead=h,
            dim_feedforward=r.randint(1, 6),
            dropout=0.0,
            bias=r.random() < 0.8,
            norm_first=r.random() < 0.5,
        )
    elif kind == "Transformer":
        a = dict(
            d_model=4,
            nhead=2,
            num_encoder_layers=r.randint(1, 2),
            num_decoder_layers=r.randint(1, 2),
            dim_feedforward=r.randint(2, 6),
            dropout=0.0,
        )
    elif kind == "LazyLinear":
        a = dict(out_features=r.randint(1, 5), bias=r.random() < 0.7)
    elif kind == "LazyConv2d":
        a = dict(out_channels=r.randint(1, 3), kernel_size=r.randint(1, 2), bias=r.random() < 0.7)
    elif kind == "LazyConvT1d":
        a = dict(out_channels=r.randint(1, 3), kernel_size=r.randint(1, 2), bias=r.random() < 0.7)
    elif kind in ("LazyBatchNorm1d", "LazyInstanceNorm2d"):
        a = dict(affine=r.random() < 0.6, track_running_stats=r.random() < 0.6)
    lazy_in = r.randint(1, 4)
    return kind, dt, a, lazy_in


layers_NAMES = {
    "ConvT1d": "ConvTranspose1d",
    "ConvT2d": "ConvTranspose2d",
    "ConvT3d": "ConvTranspose3d",
    "LazyConvT1d": "LazyConvTranspose1d",
    "MHA": "MultiheadAttention",
    "TEL": "TransformerEncoderLayer",
    "TDL": "TransformerDecoderLayer",
}


def layers_build(lib, kind, dt, a, lazy_in, seed):
    lib.manual_seed(seed)
    kw = dict(a)
    old = lib.get_default_dtype()
    try:
        if dt == "default64":
            lib.set_default_dtype(lib.float64)
        elif dt == "default16":
            lib.set_default_dtype(lib.float16)
        elif not kind.startswith("Lazy"):
            kw["dtype"] = getattr(lib, dt)
        elif dt in ("float64",):
            kw["dtype"] = lib.float64
        m = getattr(lib.nn, layers_NAMES.get(kind, kind))(**kw)
        if kind.startswith("Lazy"):
            if kind == "LazyLinear":
                x = lib.ones(
                    2, lazy_in, dtype=m.weight.dtype if hasattr(m.weight, "dtype") else None
                )
            elif kind == "LazyConv2d":
                x = lib.ones(1, lazy_in, 3, 3)
            elif kind == "LazyConvT1d":
                x = lib.ones(1, lazy_in, 3)
            elif kind == "LazyBatchNorm1d":
                x = lib.ones(2, lazy_in)
            else:
                x = lib.ones(1, lazy_in, 2, 2)
            if "dtype" in kw:
                x = x.to(kw["dtype"])
            m(x)
        nxt = lib.rand(3)
        st = {k: v for k, v in m.state_dict().items()}
        return m, st, nxt
    finally:
        lib.set_default_dtype(old)


def layers_cmp(case, seed):
    kind, dt, a, lazy_in = case
    res = []
    try:
        tm, ts, tnxt = layers_build(torch, kind, dt, a, lazy_in, seed)
        terr = None
    except Exception as e:
        terr = e
    try:
        mm, ms, mnxt = layers_build(mt, kind, dt, a, lazy_in, seed)
        merr = None
    except Exception as e:
        merr = e
        mtb = traceback.format_exc()
    if terr or merr:
        if type(terr).__name__ != type(merr).__name__ or str(terr).replace(
            "minitorch", "torch"
        ) != str(merr).replace("minitorch", "torch"):
            res.append(("error", repr(terr), repr(merr), merr and mtb[-600:]))
        return res
    if list(ts) != list(ms):
        res.append(("keys", list(ts), list(ms)))
        return res
    for k in ts:
        tv, mv = ts[k], ms[k]
        if str(tv.dtype).replace("torch.", "") != str(mv.dtype).replace("minitorch.", "").replace(
            "torch.", ""
        ):
            res.append(("dtype", k, str(tv.dtype), str(mv.dtype)))
            continue
        if tuple(tv.shape) != tuple(mv.shape):
            res.append(("shape", k, tuple(tv.shape), tuple(mv.shape)))
            continue
        tvn = tv.float().numpy() if tv.dtype == torch.bfloat16 else tv.numpy()
        mvn = mv.float().numpy() if str(mv.dtype).endswith("bfloat16") else mv.numpy()
        if not np.array_equal(tvn, mvn, equal_nan=True):
            res.append(
                (
                    "value",
                    k,
                    float(np.nanmax(np.abs(tvn.astype(float) - mvn.astype(float))))
                    if tvn.size
                    else 0,
                )
            )
    if not np.array_equal(tnxt.numpy(), mnxt.numpy()):
        res.append(("stream_after",))
    for _name in ("weight", "bias"):
        pass
    # parameter flags
    tp = [(n, p.requires_grad) for n, p in tm.named_parameters()]
    mp = [(n, p.requires_grad) for n, p in mm.named_parameters()]
    if tp != mp:
        res.append(("params", tp, mp))
    return res


def _init(i):
    case = init_gen_case(random.Random(i))
    return case, [
        (case[0],) + x for x in init_compare(init_run(torch, case, i), init_run(mt, case, i))
    ]


def _drop(i):
    case = drop_gen(random.Random(i))
    return case, [
        (case[0],) + x for x in drop_compare(drop_run(torch, case, i), drop_run(mt, case, i))
    ]


def _norm(i):
    case = norm_gen(random.Random(i))
    return case, [
        (case[0],) + x for x in norm_compare(norm_run(torch, case, i), norm_run(mt, case, i))
    ]


def _fnorm(i):
    case = fnorm_gen(random.Random(i))
    res = fnorm_compare(fnorm_run(torch, case, i), fnorm_run(mt, case, i), case[1])
    return case, [(case[0], case[1]) + x for x in res]


def _layers(i):
    case = layers_gen_case(random.Random(i))
    return case, [(case[0],) + x for x in layers_cmp(case, i)]


PARTS = {"init": _init, "drop": _drop, "norm": _norm, "fnorm": _fnorm, "layers": _layers}


def main():
    args = H.cli(
        "init_norm",
        default_cases=400,
        extra=lambda p: p.add_argument(
            "--part", default=",".join(PARTS), help="default %(default)s"
        ),
    )
    rep = args.report
    for part in args.part.split(","):
        one = H.limited(PARTS[part], args.timeout, lambda e: (None, [("timeout", str(e))]))
        for i in range(args.seed, args.seed + args.cases):
            rep.case()
            try:
                case, res = one(i)
            except Exception:
                case, res = None, [("harness", traceback.format_exc()[-600:])]
            for x in res:
                n = 2 if part == "fnorm" else 1
                key = (part,) + tuple(x[: n + 1]) if case is not None else (part, x[0])
                rep.add(key, f"seed {i} {case}"[:400], str(x)[:500])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
