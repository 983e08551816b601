"""Differential fuzzer: nn layers, losses and constructors given bad (and good) inputs.

Parts (--part): layers (random valid layer options and input, then random mutations of shape,
dtype, channels, batch), losses (loss modules with mismatched shapes/dtypes/targets/reductions),
ctors (layer constructors with bad arguments), seq (Sequential/ModuleList/ModuleDict misuse).
Compares outputs (shape, dtype, values), exception type and message, and warnings; kinds:
silent_accept (torch raised, minitorch did not), spurious_error, wrong_type, msg, value:*, warn.
--cases is per part. An input on which torch 2.13 segfaults (a packed LSTM with proj_size given
h_0 with too many layers) is skipped. Adapted from session 22's h10 fuzzer.
"""

# ruff: noqa: E501, E741  (code adapted as-is from the session fuzzers)

import re
import sys
import traceback
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Differential harness: run a case in torch and minitorch, compare outcomes.

np.set_printoptions(threshold=5, edgeitems=1)


def to_np(x):
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        t = x.detach()
        if str(t.dtype).endswith(("float16", "bfloat16")):
            t = t.float()
        return t.cpu().numpy() if isinstance(x, torch.Tensor) else t.numpy()
    return x


def summarize(out):
    if isinstance(out, (tuple, list)):
        return [summarize(o) for o in out]
    if isinstance(out, (torch.Tensor, minitorch.Tensor)):
        return (
            "T",
            tuple(out.shape),
            str(out.dtype).replace("torch.", "").replace("minitorch.", ""),
            to_np(out),
        )
    if hasattr(out, "data") and hasattr(out, "batch_sizes"):  # PackedSequence
        return ("P", summarize(out.data), to_np(out.batch_sizes))
    if isinstance(out, str):
        return ("O", out)
    return ("O", repr(out)[:80])


def execute(case, T, state=None):
    """case(T, state) -> output. Returns (kind, payload, warnings, state)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out, st = case(T, state)
            res = ("ok", summarize(out))
        except Exception as e:  # noqa: BLE001
            res = ("err", type(e).__name__, str(e))
            st = None
            if "--tb" in sys.argv and T is minitorch:
                traceback.print_exc()
    ws = [
        f"{x.category.__name__}: {x.message}"
        for x in w
        if "TypedStorage" not in str(x.message) and "enable_nested_tensor" not in str(x.message)
    ]
    return res, ws, st


def close(a, b, tol):
    if type(a) is not type(b) and not (
        isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))
    ):
        return False, "type"
    if isinstance(a, (list, tuple)) and a and a[0] in ("T", "P", "O") and isinstance(a[0], str):
        if a[0] != b[0]:
            return False, "kind"
        if a[0] == "T":
            if a[1] != b[1]:
                return False, f"shape {a[1]} vs {b[1]}"
            if a[2] != b[2]:
                return False, f"dtype {a[2]} vs {b[2]}"
            x, y = np.asarray(a[3], dtype=np.float64), np.asarray(b[3], dtype=np.float64)
            if not np.allclose(x, y, rtol=tol, atol=tol, equal_nan=True):
                return False, f"values maxdiff {np.nanmax(np.abs(x - y)) if x.size else 0}"
            return True, ""
        if a[0] == "P":
            ok, why = close(a[1], b[1], tol)
            return ok, why
        return (a[1] == b[1]), f"repr {a[1]!r} vs {b[1]!r}"
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return False, "len"
        for x, y in zip(a, b, strict=False):
            ok, why = close(x, y, tol)
            if not ok:
                return False, why
        return True, ""
    return a == b, "other"


def norm_msg(m):
    return re.sub(r"0x[0-9a-f]+", "ADDR", m)


def compare(case, tol=1e-4):
    rt, wt, st = execute(case, torch)
    rm, wm, _ = execute(case, minitorch, st)

    def short(r):
        return r if r[0] == "err" else ("ok", str(r[1])[:150])

    if rt[0] != rm[0]:
        rt, rm = short(rt), short(rm)
        if rt[0] == "err":
            return "silent_accept", rt, rm
        return "spurious_error", rt, rm
    if rt[0] == "err":
        if rt[1] != rm[1]:
            return "wrong_type", rt, rm
        if norm_msg(rt[2]) != norm_msg(rm[2]):
            return "msg", rt, rm
    else:
        ok, why = close(rt[1], rm[1], tol)
        if not ok:
            return "value:" + why, rt[1] if False else why, None
    if wt != wm:
        return "warn", wt, wm
    return "ok", None, None


# ----------------------------------------------------------------------

# Layer specs: random valid options + valid input shape; then random mutations.


def ri(rng, a, b):
    return int(rng.integers(a, b + 1))


def choice(rng, xs):
    return xs[int(rng.integers(len(xs)))]


def conv_spec(rng, d, transposed=False):
    g = choice(rng, [1, 1, 2])
    cin = g * ri(rng, 1, 3)
    cout = g * ri(rng, 1, 3)
    k = ri(rng, 1, 3)
    kw = dict(
        kernel_size=k,
        stride=ri(rng, 1, 2),
        padding=ri(rng, 0, 1),
        dilation=ri(rng, 1, 2),
        groups=g,
        bias=bool(rng.integers(2)),
    )
    if not transposed:
        pm = choice(rng, ["zeros", "zeros", "reflect", "replicate", "circular"])
        kw["padding_mode"] = pm
        if rng.random() < 0.2:
            kw["padding"] = choice(rng, ["same", "valid"])
            if kw["padding"] == "same":
                kw["stride"] = 1
    else:
        kw["output_padding"] = 0
    name = f"Conv{'Transpose' if transposed else ''}{d}d"
    sp = [ri(rng, 5, 7) for _ in range(d)]
    return name, (cin, cout), kw, [ri(rng, 1, 3), cin] + sp, 1


def specs(rng):
    """Yield (ctor name, args, kwargs, valid input shape, channel dim or None)."""
    kind = ri(rng, 0, 24)
    if kind == 0:
        i, o = ri(rng, 1, 5), ri(rng, 1, 5)
        return (
            "Linear",
            (i, o),
            dict(bias=bool(rng.integers(2))),
            [ri(rng, 1, 3)] * ri(rng, 0, 2) + [i],
            -1,
        )
    if kind in (1, 2, 3):
        return conv_spec(rng, kind)
    if kind in (4, 5):
        return conv_spec(rng, kind - 3, transposed=True)
    if kind == 6:
        d = ri(rng, 1, 3)
        c = ri(rng, 1, 4)
        sp = [ri(rng, 2, 4) for _ in range(d if d > 1 else ri(rng, 0, 1))]
        return (
            f"BatchNorm{d}d",
            (c,),
            dict(affine=bool(rng.integers(2)), track_running_stats=bool(rng.integers(2))),
            [ri(rng, 2, 3), c] + sp,
            1,
        )
    if kind == 7:
        d = ri(rng, 1, 3)
        c = ri(rng, 1, 4)
        sp = [ri(rng, 2, 4) for _ in range(d)]
        return (
            f"InstanceNorm{d}d",
            (c,),
            dict(affine=bool(rng.integers(2)), track_running_stats=bool(rng.integers(2))),
            [ri(rng, 1, 3), c] + sp,
            1,
        )
    if kind == 8:
        ns = [ri(rng, 1, 4) for _ in range(ri(rng, 1, 2))]
        name = choice(rng, ["LayerNorm", "RMSNorm"])
        return (
            name,
            (ns,),
            dict(elementwise_affine=bool(rng.integers(2))),
            [ri(rng, 1, 3)] * ri(rng, 0, 2) + ns,
            -1,
        )
    if kind == 9:
        g = ri(rng, 1, 3)
        c = g * ri(rng, 1, 2)
        return (
            "GroupNorm",
            (g, c),
            dict(affine=bool(rng.integers(2))),
            [ri(rng, 1, 3), c] + [ri(rng, 1, 3)] * ri(rng, 0, 2),
            1,
        )
    if kind in (10, 11):
        name = choice(rng, ["RNN", "LSTM", "GRU"])
        i, h = ri(rng, 1, 4), ri(rng, 2, 4)
        kw = dict(
            num_layers=ri(rng, 1, 2),
            bias=bool(rng.integers(2)),
            batch_first=bool(rng.integers(2)),
            bidirectional=bool(rng.integers(2)),
        )
        if name == "LSTM" and rng.random() < 0.3:
            kw["proj_size"] = ri(rng, 1, h - 1)
        shape = [ri(rng, 1, 3), ri(rng, 1, 3), i] if rng.random() < 0.8 else [ri(rng, 1, 3), i]
        return name, (i, h), kw, shape, -1
    if kind == 12:
        name = choice(rng, ["RNNCell", "LSTMCell", "GRUCell"])
        i, h = ri(rng, 1, 4), ri(rng, 1, 4)
        return (
            name,
            (i, h),
            dict(bias=bool(rng.integers(2))),
            [ri(rng, 1, 3)] * ri(rng, 0, 1) + [i],
            -1,
        )
    if kind == 13:
        d = ri(rng, 1, 3)
        name = choice(rng, ["MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool", "LPPool"])
        if name == "LPPool":
            d = min(d, 2) if rng.random() < 0.7 else d
        k = ri(rng, 1, 2)
        if name.startswith("Adaptive"):
            args, kw = ([ri(rng, 1, 3)] * d if rng.random() < 0.5 else ri(rng, 1, 3),), {}
        elif name == "LPPool":
            args, kw = (2.0, k), dict(stride=ri(rng, 1, 2))
        else:
            args, kw = (
                (k,),
                dict(
                    stride=ri(rng, 1, 2),
                    padding=ri(rng, 0, k // 2),
                    ceil_mode=bool(rng.integers(2)),
                ),
            )
        c = ri(rng, 1, 3)
        return f"{name}{d}d", args, kw, [ri(rng, 1, 2), c] + [ri(rng, 3, 5)] * d, 1
    if kind == 14:
        d = ri(rng, 1, 3)
        name = choice(
            rng, ["ReflectionPad", "ReplicationPad", "ZeroPad", "ConstantPad", "CircularPad"]
        )
        p = ri(rng, 0, 2) if rng.random() < 0.5 else tuple(ri(rng, 0, 2) for _ in range(2 * d))
        args = (p, 1.5) if name == "ConstantPad" else (p,)
        return f"{name}{d}d", args, {}, [ri(rng, 1, 2), ri(rng, 1, 3)] + [ri(rng, 3, 4)] * d, 1
    if kind == 15:
        name = choice(
            rng,
            [
                "Dropout",
                "Dropout1d",
                "Dropout2d",
                "Dropout3d",
                "AlphaDropout",
                "FeatureAlphaDropout",
            ],
        )
        return name, (), dict(p=0.0), [ri(rng, 1, 3) for _ in range(ri(rng, 1, 5))], None
    if kind == 16:
        n, dm = ri(rng, 2, 6), ri(rng, 1, 4)
        kw = dict(padding_idx=choice(rng, [None, 0, 1, -1]))
        return "Embedding", (n, dm), kw, ("idx", n, [ri(rng, 1, 3)] * ri(rng, 0, 2)), None
    if kind == 17:
        name = choice(rng, ["PixelShuffle", "PixelUnshuffle"])
        r = ri(rng, 1, 2)
        if name == "PixelShuffle":
            shape = [ri(rng, 1, 2), r * r * ri(rng, 1, 2), 2, 3]
        else:
            shape = [ri(rng, 1, 2), ri(rng, 1, 2), 2 * r, 2 * r]
        return name, (r,), {}, shape, 1
    if kind == 18:
        name = choice(rng, ["Upsample"])
        mode = choice(rng, ["nearest", "linear", "bilinear", "bicubic", "trilinear"])
        d = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}.get(mode, ri(rng, 1, 3))
        return name, (), dict(scale_factor=2, mode=mode), [1, 2] + [3] * d, 1
    if kind == 19:
        k = ri(rng, 1, 2)
        return "Unfold", (k,), {}, [ri(rng, 1, 2), ri(rng, 1, 2), 3, 4], 1
    if kind == 20:
        name = choice(rng, ["Flatten", "Unflatten"])
        if name == "Flatten":
            return name, (), dict(start_dim=ri(rng, 0, 1), end_dim=-1), [2, 3, 4], None
        return name, (1, (2, 3)), {}, [2, 6, 2], None
    if kind == 21:
        e = ri(rng, 1, 3) * 2
        h = choice(rng, [1, 2])
        return (
            "MultiheadAttention",
            (e, h),
            dict(batch_first=bool(rng.integers(2))),
            ("mha", e, [ri(rng, 1, 3), ri(rng, 1, 3), e]),
            None,
        )
    if kind == 22:
        i1, i2, o = ri(rng, 1, 3), ri(rng, 1, 3), ri(rng, 1, 3)
        return "Bilinear", (i1, i2, o), {}, ("two", [ri(rng, 1, 3), i1], [i2]), -1
    if kind == 23:
        e = ri(rng, 1, 3) * 2
        return (
            choice(rng, ["TransformerEncoderLayer", "TransformerDecoderLayer"]),
            (e, choice(rng, [1, 2])),
            dict(dim_feedforward=4, dropout=0.0, batch_first=bool(rng.integers(2))),
            ("tr", [ri(rng, 1, 3), ri(rng, 1, 3), e]),
            -1,
        )
    n = ri(rng, 1, 3)
    return (
        "EmbeddingBag",
        (5, 3),
        dict(mode=choice(rng, ["sum", "mean", "max"])),
        ("idx", 5, [n, 2]),
        None,
    )


def mutate(rng, shape, cdim):
    """A mutated input shape and dtype, and a label."""
    shape = list(shape)
    m = ri(rng, 0, 9)
    dtype = "float32"
    if m == 0:
        return shape, dtype, "valid"
    if m == 1 and shape:
        return shape[1:], dtype, "drop_lead"
    if m == 2:
        return [ri(rng, 1, 2)] + shape, dtype, "add_lead"
    if m == 3:
        return [], dtype, "0d"
    if m == 4 and cdim is not None and len(shape) > (cdim if cdim >= 0 else -cdim - 1):
        shape[cdim] += ri(rng, 1, 2)
        return shape, dtype, "channels"
    if m == 5 and shape:
        shape[0] = 0
        return shape, dtype, "empty_batch"
    if m == 6:
        return shape, choice(rng, ["int64", "float64", "float16", "bool"]), "dtype"
    if m == 7 and shape:
        i = ri(rng, 0, len(shape) - 1)
        shape[i] = 0
        return shape, dtype, "zero_dim"
    if m == 8 and len(shape) > 1:
        return shape[:-1], dtype, "drop_last"
    return shape + [ri(rng, 1, 2)], dtype, "add_last"


def make_array(rng, shape, dtype):
    if dtype == "int64":
        return rng.integers(-3, 4, size=shape).astype(np.int64)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    return rng.standard_normal(shape).astype(dtype if dtype != "float16" else "float32")


def tensor(T, a, dtype):
    t = T.tensor(a)
    if dtype == "float16":
        t = t.to(T.float16)
    return t


def layer_case(seed):
    rng = np.random.default_rng(seed)
    name, args, kw, shape, cdim = specs(rng)
    extra = None
    if isinstance(shape, tuple):
        tag = shape[0]
        if tag == "idx":
            n, s = shape[1], shape[2]
            m = ri(rng, 0, 4)
            lab = ["valid", "neg", "oob", "float", "empty"][m]
            a = rng.integers(0, n, size=s).astype(np.int64)
            if m == 1 and a.size:
                a.flat[0] = -1
            if m == 2 and a.size:
                a.flat[0] = n
            if m == 4:
                a = np.zeros([0] + list(s[1:]), np.int64)
            dt = "float32" if m == 3 else "int64"
            arrs = [(a.astype(np.float32) if m == 3 else a, dt)]
        elif tag == "two":
            s1, s2 = shape[1], [shape[1][0]] + shape[2]
            mm = ri(rng, 0, 3)
            lab = ["valid", "batch_mismatch", "feat", "dtype"][mm]
            if mm == 1:
                s2[0] += 1
            if mm == 2:
                s2[-1] += 1
            d2 = "float64" if mm == 3 else "float32"
            arrs = [(make_array(rng, s1, "float32"), "float32"), (make_array(rng, s2, d2), d2)]
        elif tag in ("mha", "tr"):
            s = shape[-1]
            ms, dt, lab = mutate(rng, s, -1)
            arrs = [(make_array(rng, ms, dt), dt)]
            if tag == "mha":
                arrs += [(make_array(rng, ms, dt), dt), (make_array(rng, ms, dt), dt)]
            else:
                arrs += [(make_array(rng, ms, dt), dt)]
            extra = tag
    else:
        ms, dt, lab = mutate(rng, shape, cdim)
        arrs = [(make_array(rng, ms, dt), dt)]
    train = bool(rng.integers(2))

    def case(T, state):
        ctor = getattr(T.nn, name)
        m = ctor(*args, **kw)
        if state is None:
            state = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
        else:
            m.load_state_dict({k: T.tensor(v) for k, v in state.items()})
        m.train(train)
        ts = [tensor(T, a, d) for a, d in arrs]
        if extra == "mha":
            out = m(*ts)
        elif extra == "tr" and "Decoder" in name:
            out = m(ts[0], ts[1])
        elif extra == "tr":
            out = m(ts[0])
        else:
            out = m(*ts)
        return out, state

    desc = f"{name}{args}{kw} in={[(list(a.shape), d) for a, d in arrs]} train={train} [{lab}]"
    return desc, lab, name, case


# ----------------------------------------------------------------------

# Loss cases: valid options + input/target with random bad mutations.


CLS = ["CrossEntropyLoss", "NLLLoss", "MultiMarginLoss"]
PAIR = [
    "L1Loss",
    "MSELoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "KLDivLoss",
    "HuberLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "PoissonNLLLoss",
    "MultiLabelSoftMarginLoss",
    "HingeEmbeddingLoss",
]


def loss_case(seed):
    rng = np.random.default_rng(seed)
    kind = ri(rng, 0, 5)
    red = choice(rng, ["mean", "sum", "none"])
    kw = dict(reduction=red)
    if kind <= 1:
        name = choice(rng, CLS)
        C = ri(rng, 1, 4)
        N = ri(rng, 0, 3) if rng.random() < 0.9 else 0
        sp = [ri(rng, 1, 3) for _ in range(ri(rng, 0, 2))] if name != "MultiMarginLoss" else []
        unb = rng.random() < 0.15 and not sp
        xs = [C] if unb else [N, C] + sp
        ts = [] if unb else [N] + sp
        x = rng.standard_normal(xs).astype(np.float32)
        if name == "NLLLoss":
            x = -np.abs(x)
        t = rng.integers(0, C, size=ts).astype(np.int64)
        tdt = "int64"
        if name != "MultiMarginLoss":
            ii = choice(rng, [-100, -100, 0, 1, C])
            kw["ignore_index"] = ii
        if name == "CrossEntropyLoss" and rng.random() < 0.3:
            kw["label_smoothing"] = choice(rng, [0.0, 0.1, 0.5, -0.1, 1.5])
        if name == "MultiMarginLoss":
            kw["p"] = choice(rng, [1, 2, 3])
            kw["margin"] = 1.0
        w = None
        if rng.random() < 0.3:
            w = rng.random(choice(rng, [C, C, C + 1, max(C - 1, 0)])).astype(np.float32)
        m = ri(rng, 0, 10)
        lab = "valid"
        if m == 1 and t.size:
            t.flat[int(rng.integers(t.size))] = choice(rng, [-1, C, C + 5, -2])
            lab = "oob"
        elif m == 2:
            lab = "float_target"
            if name == "CrossEntropyLoss":
                t = rng.random(t.shape).astype(np.float32)  # same shape as int target
            else:
                t = t.astype(np.float32)
            tdt = "float32"
        elif m == 3 and ts:
            ts2 = list(ts)
            ts2[0] += 1
            t = rng.integers(0, C, size=ts2)
            lab = "target_batch"
        elif m == 4:
            t = rng.integers(0, C, size=ts + [1])
            lab = "target_extra_dim"
        elif m == 5:
            x = x.reshape(-1) if x.ndim == 1 else x[..., 0]
            lab = "input_drop"
        elif m == 6:
            t = t.astype(np.int32)
            tdt = "int32"
            lab = "int32_target"
        elif m == 7 and name == "CrossEntropyLoss":
            t = rng.random(xs).astype(np.float32)
            t = t / t.sum(axis=0 if unb else 1, keepdims=True)
            tdt = "float32"
            lab = "probs"
        elif m == 8:
            x = x.astype(np.float64)
            lab = "f64_input"
        elif m == 9 and t.size:
            t.flat[0] = kw.get("ignore_index", -100)
            lab = "ignore_idx"
        elif m == 10:
            t = rng.integers(0, C, size=[]).astype(np.int64)
            lab = "0d_target"
        arrays = [(x, str(x.dtype)), (np.asarray(t), tdt)]
        if w is not None:
            kw["weight"] = ("W", w)
            if len(w) != C:
                lab += "+bad_weight"
    elif kind <= 3:
        name = choice(rng, PAIR)
        shape = [ri(rng, 0, 3) for _ in range(ri(rng, 0, 3))]
        if name == "MultiLabelSoftMarginLoss":
            shape = [ri(rng, 1, 3), ri(rng, 1, 3)]
        x = rng.standard_normal(shape).astype(np.float32)
        if name == "BCELoss":
            x = 1 / (1 + np.exp(-x))
        if name == "KLDivLoss":
            kw["log_target"] = bool(rng.integers(2))
            if red == "mean" and rng.random() < 0.5:
                kw["reduction"] = "batchmean"
        t = rng.random(shape).astype(np.float32)
        if name in ("SoftMarginLoss", "HingeEmbeddingLoss"):
            t = np.sign(t - 0.5).astype(np.float32)
        tdt = "float32"
        if name == "HuberLoss":
            kw["delta"] = choice(rng, [1.0, 0.5, 0.0, -1.0])
        if name == "SmoothL1Loss":
            kw["beta"] = choice(rng, [1.0, 0.0, -1.0])
        m = ri(rng, 0, 8)
        lab = "valid"
        ts = list(shape)
        if m == 1:
            ts = [1] + ts if rng.random() < 0.5 else (ts[1:] if ts else [2])
            t = rng.random(ts).astype(np.float32)
            lab = "bcast_target"
        elif m == 2:
            t = (t > 0.5).astype(np.int64)
            tdt = "int64"
            lab = "int_target"
        elif m == 3:
            t = t.astype(np.float64)
            tdt = "float64"
            lab = "f64_target"
        elif m == 4 and name == "BCELoss":
            x = x * 3 - 1
            lab = "bce_range"
        elif m == 5 and ts:
            ts[-1] += 1
            t = rng.random(ts).astype(np.float32)
            lab = "shape_mismatch"
        elif m == 6:
            x = (x > 0).astype(np.int64)
            lab = "int_input"
        elif m == 7 and name in ("BCELoss", "BCEWithLogitsLoss"):
            kw["weight"] = (
                "W",
                rng.random(choice(rng, [[1], [2], shape[-1:] or [1]])).astype(np.float32),
            )
            lab = "weight"
        elif m == 8 and name == "BCEWithLogitsLoss":
            kw["pos_weight"] = (
                "W",
                rng.random(choice(rng, [[1], [3], shape[-1:] or [1]])).astype(np.float32),
            )
            lab = "pos_weight"
        arrays = [(x, str(x.dtype)), (np.asarray(t), tdt)]
    elif kind == 4:
        name = choice(
            rng,
            ["MarginRankingLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "GaussianNLLLoss"],
        )
        N, D = ri(rng, 0, 3), ri(rng, 1, 3)
        m = ri(rng, 0, 5)
        lab = ["valid", "batch_mismatch", "feat_mismatch", "rank", "int", "0d"][m]
        if name == "MarginRankingLoss":
            shapes = [[N], [N], [N]]
        elif name == "CosineEmbeddingLoss":
            shapes = [[N, D], [N, D], [N]]
        elif name == "TripletMarginLoss":
            shapes = [[N, D], [N, D], [N, D]]
        else:
            shapes = [[N, D], [N, D], [N, choice(rng, [D, 1])]]
            kw["full"] = bool(rng.integers(2))
        if m == 1:
            shapes[ri(rng, 0, 2)][0] = N + 1
        if m == 2 and len(shapes[1]) > 1:
            shapes[1][1] += 1
        if m == 3:
            shapes[ri(rng, 0, 2)] = [2, 2, 2]
        if m == 5:
            shapes[ri(rng, 0, 2)] = []
        arrays = []
        for i, s in enumerate(shapes):
            a = rng.standard_normal(s).astype(np.float32)
            if name == "GaussianNLLLoss" and i == 2:
                a = np.abs(a) + 0.1 if rng.random() < 0.8 else -np.abs(a)
            if name == "CosineEmbeddingLoss" and i == 2 or name == "MarginRankingLoss" and i == 2:
                a = np.sign(a).astype(np.float32)
            dt = "float32"
            if m == 4 and i == 2:
                a = a.astype(np.int64)
                dt = "int64"
            arrays.append((a, dt))
    else:
        name = "MultiLabelMarginLoss"
        N, C = ri(rng, 0, 3), ri(rng, 1, 4)
        x = rng.standard_normal([N, C]).astype(np.float32)
        t = rng.integers(-1, C, size=[N, C]).astype(np.int64)
        m = ri(rng, 0, 4)
        lab = ["valid", "oob", "shape", "float_t", "1d"][m]
        tdt = "int64"
        if m == 1 and t.size:
            t.flat[0] = C
        if m == 2:
            t = rng.integers(-1, C, size=[N, C + 1])
        if m == 3:
            t = t.astype(np.float32)
            tdt = "float32"
        if m == 4:
            x, t = x[0] if N else x.reshape(-1), t[0] if N else t.reshape(-1)
        arrays = [(x, str(x.dtype)), (np.asarray(t), tdt)]

    def case(T, state):
        kwargs = {
            k: (T.tensor(v[1]) if isinstance(v, tuple) and v and v[0] == "W" else v)
            for k, v in kw.items()
        }
        mod = getattr(T.nn, name)(**kwargs)
        ts = [T.tensor(np.asarray(a)).to(getattr(T, d)) for a, d in arrays]
        if ts[0].is_floating_point():
            ts[0].requires_grad_(True)
        out = mod(*ts)
        res = [out]
        if out.requires_grad and out.numel():
            out.sum().backward()
            res.append(ts[0].grad)
        return res, None

    kdesc = {k: (f"W{list(v[1].shape)}" if isinstance(v, tuple) else v) for k, v in kw.items()}
    desc = f"{name}({kdesc}) in={[(list(np.shape(a)), d) for a, d in arrays]} [{lab}]"
    return desc, lab, name, case


# ----------------------------------------------------------------------

# Constructor / call argument cases from a table, expanded with random values.

CTORS = [
    ("Linear", lambda r: ((ri(r, -2, 3), ri(r, -2, 3)), {})),
    ("Bilinear", lambda r: ((ri(r, -1, 2), ri(r, -1, 2), ri(r, -1, 2)), {})),
    (
        "Conv1d",
        lambda r: (
            (ri(r, -1, 4), ri(r, -1, 4), ri(r, -1, 3)),
            dict(
                stride=ri(r, -1, 2),
                padding=choice(r, [0, 1, -1, "same", "valid", "bad"]),
                dilation=ri(r, 0, 2),
                groups=ri(r, 0, 3),
                padding_mode=choice(r, ["zeros", "reflect", "bad", "circular"]),
            ),
        ),
    ),
    (
        "Conv2d",
        lambda r: (
            (ri(r, 1, 4), ri(r, 1, 4), choice(r, [2, (1, 2), (0, 1), (1, 2, 3)])),
            dict(
                stride=choice(r, [1, 2, (1, 2), 0]),
                padding=choice(r, [0, "same", (1, 1), (1, 1, 1)]),
                groups=ri(r, 1, 3),
            ),
        ),
    ),
    (
        "ConvTranspose2d",
        lambda r: (
            (ri(r, 1, 4), ri(r, 1, 4), 2),
            dict(
                stride=ri(r, 1, 2),
                padding=choice(r, [0, "same"]),
                output_padding=ri(r, 0, 2),
                groups=ri(r, 1, 2),
                padding_mode=choice(r, ["zeros", "reflect"]),
            ),
        ),
    ),
    ("BatchNorm1d", lambda r: ((ri(r, -1, 3),), dict(momentum=choice(r, [0.1, None, -1.0])))),
    ("GroupNorm", lambda r: ((ri(r, 0, 3), ri(r, 0, 4)), {})),
    ("LayerNorm", lambda r: ((choice(r, [3, (2, 3), 0, -1, ()]),), {})),
    (
        "RNN",
        lambda r: (
            (ri(r, -1, 3), ri(r, -1, 3)),
            dict(
                num_layers=ri(r, 0, 2),
                nonlinearity=choice(r, ["tanh", "relu", "bad"]),
                dropout=choice(r, [0.0, 0.5, 1.5, -0.1, 1]),
                bidirectional=bool(r.integers(2)),
            ),
        ),
    ),
    (
        "LSTM",
        lambda r: (
            (ri(r, 1, 3), ri(r, 1, 3)),
            dict(proj_size=ri(r, -1, 3), num_layers=ri(r, 1, 2), dropout=choice(r, [0.0, 0.5])),
        ),
    ),
    (
        "GRU",
        lambda r: (
            (ri(r, 1, 3), ri(r, 1, 3)),
            dict(num_layers=choice(r, [1, 2, 1.5, True]), dropout=choice(r, [0.0, 0.5])),
        ),
    ),
    (
        "RNNCell",
        lambda r: (
            (ri(r, -1, 3), ri(r, -1, 3)),
            dict(nonlinearity=choice(r, ["tanh", "relu", "bad"])),
        ),
    ),
    (
        "Embedding",
        lambda r: (
            (ri(r, -1, 4), ri(r, -1, 3)),
            dict(padding_idx=choice(r, [None, 0, 3, -1, -4, 5]), max_norm=choice(r, [None, 1.0])),
        ),
    ),
    (
        "EmbeddingBag",
        lambda r: (
            (ri(r, 1, 4), ri(r, 1, 3)),
            dict(
                mode=choice(r, ["sum", "mean", "max", "bad"]),
                padding_idx=choice(r, [None, 0, -1, 9]),
            ),
        ),
    ),
    ("Dropout", lambda r: ((), dict(p=choice(r, [0.0, 0.5, 1.0, -0.1, 1.1, 2])))),
    ("Dropout2d", lambda r: ((), dict(p=choice(r, [0.5, -0.1, 1.1])))),
    ("AlphaDropout", lambda r: ((), dict(p=choice(r, [0.5, -0.1, 1.1])))),
    (
        "MultiheadAttention",
        lambda r: (
            (ri(r, -1, 6), ri(r, -1, 4)),
            dict(
                dropout=choice(r, [0.0, 1.5]), kdim=choice(r, [None, 3]), vdim=choice(r, [None, 2])
            ),
        ),
    ),
    (
        "TransformerEncoderLayer",
        lambda r: (
            (ri(r, 1, 6), ri(r, 1, 4)),
            dict(dim_feedforward=ri(r, -1, 4), activation=choice(r, ["relu", "gelu", "bad"])),
        ),
    ),
    (
        "Transformer",
        lambda r: (
            (),
            dict(
                d_model=ri(r, 2, 6),
                nhead=ri(r, 1, 4),
                num_encoder_layers=ri(r, 0, 1),
                num_decoder_layers=ri(r, 0, 1),
                dim_feedforward=4,
            ),
        ),
    ),
    (
        "MaxPool2d",
        lambda r: (
            (choice(r, [2, 0, -1, (2, 2, 2)]),),
            dict(
                stride=choice(r, [None, 0, 1]), padding=choice(r, [0, 1, 2]), dilation=ri(r, 0, 2)
            ),
        ),
    ),
    (
        "AvgPool1d",
        lambda r: (
            (choice(r, [2, 0, -1]),),
            dict(stride=choice(r, [None, 0, 1]), padding=choice(r, [0, 1, 2])),
        ),
    ),
    ("AdaptiveAvgPool2d", lambda r: ((choice(r, [2, 0, -1, (2, None), (1, 2, 3)]),), {})),
    ("PixelShuffle", lambda r: ((ri(r, -1, 2),), {})),
    (
        "Upsample",
        lambda r: (
            (),
            dict(
                size=choice(r, [None, 2]),
                scale_factor=choice(r, [None, 2, -1.0]),
                mode=choice(r, ["nearest", "bad", "linear"]),
            ),
        ),
    ),
    ("Flatten", lambda r: ((), dict(start_dim=ri(r, -3, 3), end_dim=ri(r, -3, 3)))),
    ("Unflatten", lambda r: ((ri(r, -2, 2), choice(r, [(2, 3), (2, -1), (-1, -1), (4,)])), {})),
    ("ReflectionPad1d", lambda r: ((choice(r, [1, -1, (1,), (1, 2, 3), 3]),), {})),
    ("ConstantPad2d", lambda r: ((choice(r, [1, (1, 2), (1, 2, 3, 4)]), 0.5), {})),
    ("Fold", lambda r: (((4, 4), 2), dict(stride=ri(r, 0, 2)))),
    (
        "CrossEntropyLoss",
        lambda r: (
            (),
            dict(
                reduction=choice(r, ["mean", "bad", "batchmean"]),
                label_smoothing=choice(r, [0.0, -0.5, 1.5]),
            ),
        ),
    ),
    ("KLDivLoss", lambda r: ((), dict(reduction=choice(r, ["mean", "batchmean", "bad"])))),
    ("CTCLoss", lambda r: ((), dict(blank=ri(r, -1, 5), reduction=choice(r, ["mean", "bad"])))),
    (
        "TripletMarginLoss",
        lambda r: ((), dict(margin=choice(r, [1.0, -1.0, 0.0]), p=choice(r, [2, 0, -1]))),
    ),
    (
        "HuberLoss",
        lambda r: (
            (),
            dict(delta=choice(r, [1.0, 0.0, -1.0]), reduction=choice(r, ["mean", "bad"])),
        ),
    ),
    ("MultiMarginLoss", lambda r: ((), dict(p=choice(r, [1, 2, 3])))),
    ("InstanceNorm2d", lambda r: ((ri(r, -1, 3),), dict(momentum=choice(r, [0.1, None])))),
    ("LocalResponseNorm", lambda r: ((ri(r, -1, 3),), {})),
    (
        "RMSNorm",
        lambda r: ((choice(r, [3, (2, 3), 0, -1]),), dict(eps=choice(r, [None, 1e-5, -1.0]))),
    ),
    ("LPPool2d", lambda r: ((choice(r, [2, 0, -1, 1.5]), 2), {})),
    ("Softmax2d", lambda r: ((), {})),
]
IN = {
    "Conv1d": (2, 4, 6),
    "Conv2d": (1, 4, 5, 5),
    "ConvTranspose2d": (1, 4, 3, 3),
    "BatchNorm1d": (2, 3),
    "GroupNorm": (2, 4, 3),
    "LayerNorm": (2, 2, 3),
    "Embedding": "idx",
    "EmbeddingBag": "idx2",
    "Dropout": (2, 3),
    "Dropout2d": (2, 3, 4),
    "AlphaDropout": (2, 3),
    "MaxPool2d": (1, 1, 4, 4),
    "AvgPool1d": (1, 1, 4),
    "AdaptiveAvgPool2d": (1, 2, 4, 4),
    "PixelShuffle": (1, 4, 2, 2),
    "Upsample": (1, 1, 3, 3),
    "Flatten": (2, 3, 4),
    "Unflatten": (2, 6, 1),
    "ReflectionPad1d": (1, 2, 4),
    "ConstantPad2d": (1, 2, 3),
    "Fold": (1, 4, 9),
    "InstanceNorm2d": (2, 2, 3, 3),
    "LocalResponseNorm": (1, 3, 4),
    "RMSNorm": (2, 2, 3),
    "LPPool2d": (1, 1, 4, 4),
    "Softmax2d": (1, 2, 3, 3),
}


def ctor_case(seed):
    r = np.random.default_rng(seed)
    name, f = CTORS[seed % len(CTORS)]
    args, kw = f(r)
    shp = IN.get(name)
    x = None
    if isinstance(shp, tuple):
        x = r.standard_normal(shp).astype(np.float32)
    elif shp in ("idx", "idx2"):
        x = r.integers(0, 3, size=(2, 2))

    def case(T, state):
        m = getattr(T.nn, name)(*args, **kw)
        out = [repr(m)]
        if x is not None:
            m.eval()
            out.append(m(T.tensor(x)))
        return out, None

    return f"{name}{args}{kw}", "ctor", name, case


# ----------------------------------------------------------------------

# RNN hx shapes, packed sequences, MHA / Transformer masks.


def seq_case(seed):
    r = np.random.default_rng(seed)
    kind = seed % 3
    if kind == 0:
        name = choice(r, ["RNN", "LSTM", "GRU"])
        I, H, L = ri(r, 1, 3), ri(r, 2, 3), ri(r, 1, 2)
        bi = bool(r.integers(2))
        bf = bool(r.integers(2))
        P = ri(r, 1, H - 1) if name == "LSTM" and r.random() < 0.3 else 0
        kw = dict(num_layers=L, bidirectional=bi, batch_first=bf)
        if P:
            kw["proj_size"] = P
        D = 2 if bi else 1
        Tn, N = ri(r, 1, 3), ri(r, 1, 3)
        unb = r.random() < 0.2
        xs = [Tn, I] if unb else ([N, Tn, I] if bf else [Tn, N, I])
        hs = [D * L, P or H] if unb else [D * L, N, P or H]
        cs = [D * L, H] if unb else [D * L, N, H]
        m = ri(r, 0, 6)
        lab = ["valid", "h_batch", "h_layers", "h_feat", "h_rank", "h_dtype", "c_shape"][m]
        hs2 = list(hs)
        if m == 1 and not unb:
            hs2[1] += 1
        if m == 2:
            hs2[0] += 1
        if m == 3:
            hs2[-1] += 1
        if m == 4:
            hs2 = hs2[1:] if not unb else [1] + hs2
        cs2 = list(cs)
        if m == 6:
            cs2[-1] += 1
        hdt = "float64" if m == 5 else "float32"
        x = r.standard_normal(xs).astype(np.float32)
        h = r.standard_normal(hs2).astype(hdt)
        c = r.standard_normal(cs2).astype(np.float32)
        packed = (not unb) and r.random() < 0.3
        lens = sorted(r.integers(1, Tn + 1, size=N).tolist(), reverse=bool(r.integers(2)) or True)
        if packed and r.random() < 0.5:
            lens = r.integers(1, Tn + 1, size=N).tolist()
            lab += "+unsorted"
        enforce = bool(r.integers(2))

        def case(T, state):
            m_ = getattr(T.nn, name)(I, H, **kw)
            if state is None:
                state = {k: v.detach().numpy().copy() for k, v in m_.state_dict().items()}
            else:
                m_.load_state_dict({k: T.tensor(v) for k, v in state.items()})
            xt = T.tensor(x)
            if packed:
                xt = T.nn.utils.rnn.pack_padded_sequence(
                    xt, T.tensor(lens), batch_first=bf, enforce_sorted=enforce
                )
            hx = (T.tensor(h), T.tensor(c)) if name == "LSTM" else T.tensor(h)
            out = m_(xt, hx)
            if packed:
                o, ln = T.nn.utils.rnn.pad_packed_sequence(out[0], batch_first=bf)
                return [o, ln, out[1]], state
            return list(out), state

        return (
            f"{name}({I},{H},{kw}) x={xs} h={hs2} c={cs2} {hdt} packed={packed} lens={lens} enf={enforce} [{lab}]",
            lab,
            name,
            case,
        )
    if kind == 1:
        E = 2 * ri(r, 1, 2)
        Hh = choice(r, [1, 2])
        bf = bool(r.integers(2))
        L, S, N = ri(r, 1, 3), ri(r, 1, 3), ri(r, 1, 2)
        unb = r.random() < 0.2
        q = [L, E] if unb else ([N, L, E] if bf else [L, N, E])
        k = [S, E] if unb else ([N, S, E] if bf else [S, N, E])
        m = ri(r, 0, 8)
        lab = ["none", "am2d", "am3d", "am_bad", "kpm", "kpm_bad", "am_int", "kpm_float", "both"][m]
        am = kpm = None
        if m in (1, 8):
            am = (r.random((L, S)) < 0.3, "bool")
        if m == 2:
            am = (
                r.standard_normal((N * Hh if not unb else Hh, L, S)).astype(np.float32),
                "float32",
            )
        if m == 3:
            am = (
                r.random(choice(r, [(L, S + 1), (L + 1, S), (2, L, S), (1, 1, L, S)])) < 0.3,
                "bool",
            )
        if m == 4 or m == 8:
            kpm = (r.random((S,) if unb else (N, S)) < 0.3, "bool")
        if m == 5:
            kpm = (r.random(choice(r, [(N, S + 1), (N + 1, S), (S,)])) < 0.3, "bool")
        if m == 6:
            am = (r.integers(0, 2, (L, S)), "int64")
        if m == 7:
            kpm = (r.standard_normal((S,) if unb else (N, S)).astype(np.float32), "float32")
        need_w = bool(r.integers(2))
        avg = bool(r.integers(2))
        xq = r.standard_normal(q).astype(np.float32)
        xk = r.standard_normal(k).astype(np.float32)

        def case(T, state):
            mha = T.nn.MultiheadAttention(E, Hh, batch_first=bf)
            if state is None:
                state = {kk: v.detach().numpy().copy() for kk, v in mha.state_dict().items()}
            else:
                mha.load_state_dict({kk: T.tensor(v) for kk, v in state.items()})

            def mk(a):
                return None if a is None else T.tensor(a[0]).to(getattr(T, a[1]))

            out = mha(
                T.tensor(xq),
                T.tensor(xk),
                T.tensor(xk),
                attn_mask=mk(am),
                key_padding_mask=mk(kpm),
                need_weights=need_w,
                average_attn_weights=avg,
            )
            return [o for o in out if o is not None], state

        return (
            f"MHA({E},{Hh},bf={bf}) q={q} k={k} am={None if am is None else (am[0].shape, am[1])} kpm={None if kpm is None else (kpm[0].shape, kpm[1])} [{lab}]",
            lab,
            "MHA",
            case,
        )
    # Transformer masks
    E, Hh, bf = 4, choice(r, [1, 2]), bool(r.integers(2))
    S, Tt, N = ri(r, 1, 3), ri(r, 1, 3), ri(r, 1, 2)
    src = [N, S, E] if bf else [S, N, E]
    tgt = [N, Tt, E] if bf else [Tt, N, E]
    m = ri(r, 0, 5)
    lab = ["none", "tgt_causal", "src_mask_bad", "tgt_mask_bad", "mem_kpm_bad", "batch_mismatch"][m]
    masks = {}
    if m == 1:
        masks["tgt_mask"] = np.triu(np.full((Tt, Tt), -np.inf, np.float32), 1)
    if m == 2:
        masks["src_mask"] = np.zeros((S + 1, S), np.float32)
    if m == 3:
        masks["tgt_mask"] = np.zeros((Tt, Tt + 1), np.float32)
    if m == 4:
        masks["memory_key_padding_mask"] = np.zeros((N, S + 1), bool)
    if m == 5:
        tgt[1 if not bf else 0] += 1
    xs_ = r.standard_normal(src).astype(np.float32)
    xt_ = r.standard_normal(tgt).astype(np.float32)

    def case(T, state):
        tr = T.nn.Transformer(E, Hh, 1, 1, 4, 0.0, batch_first=bf)
        if state is None:
            state = {kk: v.detach().numpy().copy() for kk, v in tr.state_dict().items()}
        else:
            tr.load_state_dict({kk: T.tensor(v) for kk, v in state.items()})
        tr.eval()
        return tr(
            T.tensor(xs_), T.tensor(xt_), **{kk: T.tensor(v) for kk, v in masks.items()}
        ), state

    return (
        f"Transformer(h={Hh},bf={bf}) src={src} tgt={tgt} masks={ {k: v.shape for k, v in masks.items()} } [{lab}]",
        lab,
        "Transformer",
        case,
    )


def TORCH_CRASH(part, name, lab, desc):
    """torch 2.13 segfaults on a packed LSTM with proj_size given h_0 with too many layers."""
    return (
        part == "seq"
        and name == "LSTM"
        and lab == "h_layers"
        and "packed=True" in desc
        and "'proj_size'" in desc
        and "'proj_size': 0" not in desc
    )


PARTS = {"layers": layer_case, "losses": loss_case, "ctors": ctor_case, "seq": seq_case}


def main():
    args = H.cli(
        "nn_badinputs",
        default_cases=600,
        extra=lambda p: p.add_argument("--part", help="comma-separated parts (default all)"),
    )
    rep = args.report
    cmp = H.limited(compare, args.timeout, lambda e: ("timeout", str(e), None))
    for part in args.part.split(",") if args.part else list(PARTS):
        make = PARTS[part]
        for seed in range(args.seed, args.seed + args.cases):
            rep.case()
            try:
                desc, lab, name, case = make(seed)
            except Exception as e:
                rep.add((part, "gen-error"), f"seed={seed}", repr(e)[:200])
                continue
            if TORCH_CRASH(part, name, lab, desc):
                continue  # torch 2.13 segfaults on this input
            kind, a, b = cmp(case)
            if kind != "ok":
                rep.add(
                    (part, name, kind.split(":")[0], lab),
                    f"seed={seed} {desc}",
                    f"torch: {a}"[:400],
                    f"mt:    {b}"[:400],
                )
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
