"""Seeded differential sweep of convolutions and pooling against torch: F.conv1d/2d/3d,
F.conv_transpose1d/2d/3d, nn.Conv*/ConvTranspose* (every padding_mode, 'same'/'valid'),
max/avg/lp/adaptive pooling (indices, ceil_mode, dilation, count_include_pad,
divisor_override), max_unpool and fold/unfold. Shapes are random (batched and unbatched, size-1
and empty dims) and so are the arguments, sometimes invalid ones. Float64 cases compare the
output and the gradients of every input and parameter (random upstream gradient); float32,
float16 and bfloat16 cases compare the output's values, dtype and shape; an invalid call must
raise torch's exception type with torch's message. Grids of edge cases then compare the
outcome (shape, dtype and strides, or the error) of the argument checks' order, transposed
convolutions' dtype and size checks, and channels-last inputs of the 3-d pools.

Where torch itself goes wrong the sweep steps aside, saying so: its float32 and half transposed
convolutions on oneDNN skip the size checks (compared in float64), its bfloat16 conv3d can miss
its own float64 result (compared with that), a max-pooling window wholly in the padding gives an
index outside the input (no backward there), max_unpool writes out of bounds for such an index
(the windows tile the input). On a CPU without oneDNN's bfloat16/float16 support (an AVX2 AMD
EPYC) torch convolves those dtypes on its slow kernels, whose messages and order of checks are
not those of the oneDNN kernel minitorch follows: their variants are accepted there (see
tests/reference/_host.py), and compared exactly on a oneDNN host.

Counts: the sweep's 1440 calls (600 functional convolutions, 240 modules, 600 pooling, unpooling
and folding calls) and the grids' 3451 all match; before the fixes made with them 1427 and 1861
did. `python <this file>` tallies the sweep."""

from __future__ import annotations

import re
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

import minitorch
from tests.reference._host import (
    onednn_refusal,
    slow_here,
    slow_variant,
    slow_variant_here,
)

torch = pytest.importorskip("torch")

TOL = {  # (rtol, atol) of the output, relative to the output's largest magnitude
    "float64": (1e-10, 1e-10),
    "float32": (1e-5, 1e-5),
    "float16": (2e-3, 4e-3),
    "bfloat16": (1.6e-2, 3e-2),
    "int64": (1e-6, 1e-6),  # lp_pool of an integer input: a float32 result
}


@dataclass
class Case:
    """call(lib, module, *tensors) -> tensor or tuple; build(lib, dtype) -> module or None."""

    label: str
    call: Callable
    inputs: list = field(default_factory=list)
    dtype: str = "float64"
    build: Callable | None = None
    grads: bool = True
    layout: str = ""  # of the first input: "", channels_last, transposed or strided


def _ri(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def _tup(rng, d, lo, hi):
    """An int or a d-tuple of ints in [lo, hi]."""
    return _ri(rng, lo, hi) if rng.random() < 0.5 else tuple(_ri(rng, lo, hi) for _ in range(d))


def _each(v, d):
    return (v,) * d if isinstance(v, int) else tuple(v)


def _dtype(rng, p64=0.6):
    if rng.random() < p64:
        return "float64"
    return str(rng.choice(["float32", "float32", "float16", "bfloat16", "int64"]))


def _tensor(lib, v, dt):
    if v is None or isinstance(v, (int, float, str, tuple, list)):
        return v
    if dt == "int64":
        v = np.round(v * 3)
    t = lib.tensor(v.copy()).to(getattr(lib, dt))
    return t.requires_grad_(dt == "float64")


def _lay_out(lib, t, layout):
    """A leaf holding t's values in another memory layout (the layout the op reads)."""
    with lib.no_grad():
        if layout == "channels_last" and t.ndim in (4, 5):
            fmt = lib.channels_last if t.ndim == 4 else lib.channels_last_3d
            out = t.contiguous(memory_format=fmt)
        elif layout == "transposed" and t.ndim > 1:
            out = t.transpose(-1, -2).contiguous().transpose(-1, -2)
        elif layout == "strided" and t.ndim:
            out = lib.zeros(*t.shape[:-1], 2 * t.shape[-1], dtype=t.dtype)[..., ::2]
            out.copy_(t)
        else:
            return t
    return out.requires_grad_(t.requires_grad)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def _np(t):
    t = t.detach()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return np.array(t.numpy())


def _run(lib, case: Case, sd, grads=True, upcast=False):
    """(state_dict as arrays, result): result holds 'err', or outputs and gradients. upcast:
    the inputs rounded to the case's dtype, then computed in float64."""
    m = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if case.build is not None:
                m = case.build(lib, getattr(lib, "float64" if upcast else case.dtype))
                if sd is None:
                    with torch.no_grad():
                        for p in m.parameters():
                            p.copy_(torch.randn_like(p) * 0.5)
                    sd = {k: v.detach().double().numpy() for k, v in m.state_dict().items()}
                else:
                    dt = getattr(lib, case.dtype)
                    m.load_state_dict(
                        {k: lib.tensor(v).to(dt).to(m.weight.dtype) for k, v in sd.items()}
                    )
            ins = [_tensor(lib, v, case.dtype) for v in case.inputs]
            if upcast:
                ins = [t.detach().double() if hasattr(t, "double") else t for t in ins]
            if case.layout and ins:
                ins[0] = _lay_out(lib, ins[0], case.layout)
            outs = _flat(case.call(lib, m, *ins))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        # a set printed in a message (the padding modes) in an order that varies by run
        msg = re.sub(r"\{[^{}]*\}", lambda m: str(sorted(m[0][1:-1].split(", "))), str(e))
        return sd, {"err": (type(e).__name__, msg)}
    res = {"out": [(_np(o), str(o.dtype).split(".")[-1]) for o in outs]}
    diff = [o for o in outs if o.requires_grad]
    # a max-pooling window wholly in the padding gives -inf and an index outside the input,
    # through which torch's backward writes out of bounds: no backward there
    grads = grads and not any(o.dtype.is_floating_point and bool(o.isneginf().any()) for o in outs)
    res["grads?"] = grads
    if grads and case.grads and diff and case.dtype == "float64":
        rng = np.random.default_rng(zlib.crc32(case.label.encode()))
        gs = [lib.tensor(rng.uniform(-1, 1, tuple(o.shape))) for o in diff]
        leaves = [t for t in ins if getattr(t, "requires_grad", False)]
        if m is not None:
            leaves += list(m.parameters())
        second = rng.random() < 0.3  # and the second derivatives (random directions)
        try:
            first = lib.autograd.grad(diff, leaves, gs, allow_unused=True, create_graph=second)
            res["grads"] = [None if g is None else g.detach().numpy() for g in first]
            outer = [(g, lib.tensor(rng.uniform(-1, 1, tuple(g.shape)))) for g in first if
                     g is not None and g.requires_grad]  # fmt: skip
            if second and outer:
                total = sum((g * v).sum() for g, v in outer)
                res["grads"] += [
                    None if g is None else g.numpy()
                    for g in lib.autograd.grad(total, leaves, allow_unused=True)
                ]
        except RuntimeError as e:
            res["grads"] = ("err", type(e).__name__, str(e))
    return sd, res


def _close(g, w, dt, what):
    rtol, atol = TOL[dt]
    scale = float(np.max(np.abs(w), initial=0.0)) if np.all(np.isfinite(w)) else 1.0
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * max(scale, 1.0), err_msg=what)


def _wrong_in_torch(case, sd, k, w):
    """Whether torch's output k (w) of a low-precision case misses its float64 result."""
    ref = _run(torch, case, sd, upcast=True)[1]["out"][k][0]
    try:
        _close(w, ref, case.dtype, "")
    except AssertionError:
        return True
    return False


def _compare(case: Case):
    torch.manual_seed(zlib.crc32(case.label.encode()))
    sd, want = _run(torch, case, None)
    got = _run(minitorch, case, sd, want.get("grads?", True))[1]
    if "err" in want or "err" in got:
        g, w = got.get("err"), want.get("err")
        if g and w and g != w and g[0] == w[0] and slow_variant_here(g[1], w[1], case.dtype):
            # torch here convolves this bfloat16/float16 input on its slow kernels (an AVX2
            # AMD EPYC), minitorch as oneDNN does: their variant of its message
            return
        assert g == w, f"{case.label}: {g}"
        return
    assert len(got["out"]) == len(want["out"]), case.label
    for k, ((g, gd), (w, wd)) in enumerate(zip(got["out"], want["out"], strict=True)):
        what = f"{case.label} output {k}"
        assert (g.shape, gd) == (w.shape, wd), f"{what}: {g.shape} {gd} != {w.shape} {wd}"
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w, err_msg=what)
        else:
            try:
                _close(g, w, case.dtype, what)
            except AssertionError:
                low = case.dtype in ("float16", "bfloat16")
                if not low or not _wrong_in_torch(case, sd, k, w):
                    raise
                # torch's low-precision kernel misses its own float64 result (its bfloat16
                # conv3d over a depth of 1 padded by 1 is off by up to 1e35): compare with that
                ref = _run(torch, case, sd, upcast=True)[1]["out"][k][0]
                _close(g, ref, case.dtype, what)
    if "grads" not in want:
        return
    if isinstance(want["grads"], tuple) and "non-zero size" in want["grads"][2]:
        # torch refuses a backward through an adaptive max pool's empty output, where
        # minitorch gives the zero gradient
        assert not any(np.any(g) for g in got["grads"] if g is not None), case.label
        return
    if isinstance(want["grads"], tuple) or isinstance(got.get("grads"), tuple):
        assert got.get("grads") == want["grads"], case.label
        return
    for k, (g, w) in enumerate(zip(got["grads"], want["grads"], strict=True)):
        what = f"{case.label} gradient {k}"
        if g is None or w is None:  # an unused input: None on one side, zeros on the other
            assert not np.any(g) and not np.any(w), f"{what}: None on one side"
            continue
        assert g.shape == w.shape, f"{what}: {g.shape} != {w.shape}"
        _close(g, w, "float64", what)


# ------------------------------------------------------------------------------ convolutions


def _transpose_valid(x, w, kw, d):
    """Whether a transposed convolution has positive dilations and output sizes (and output
    channels)."""
    if x.ndim not in (d + 1, d + 2) or w.ndim != d + 2 or isinstance(kw["padding"], str):
        return False
    if not w.shape[1]:
        return False
    k = w.shape[2:]
    p, s, dl = (_each(kw.get(a, int(a == "stride")), d) for a in ("padding", "stride", "dilation"))
    op = _each(kw.get("output_padding", 0), d)
    if min(dl) <= 0 or min(s) <= 0 or min(p) < 0 or len({len(p), len(s), len(dl), d}) > 1:
        return False
    out = [
        (n - 1) * a - 2 * b + c * (kk - 1) + e + 1
        for n, a, b, c, kk, e in zip(x.shape[-d:], s, p, dl, k, op, strict=True)
    ]
    return min(out) > 0


def _conv(rng, i):
    d = _ri(rng, 1, 3)
    dt = _dtype(rng)
    transpose = rng.random() < 0.4
    groups = _ri(rng, 1, 3) if rng.random() < 0.5 else 1
    cin, cout = groups * _ri(rng, 1, 2), groups * _ri(rng, 1, 2)
    k = tuple(_ri(rng, 1, 3) for _ in range(d))
    stride = _tup(rng, d, 1, 3) if rng.random() < 0.5 else 1
    dilation = _tup(rng, d, 1, 2) if rng.random() < 0.4 else 1
    kw = dict(stride=stride, dilation=dilation, groups=groups)
    n = _ri(rng, 0, 2) if rng.random() < 0.15 else _ri(rng, 1, 2)
    sp = tuple(_ri(rng, 1, 6) if rng.random() < 0.95 else 0 for _ in range(d))
    if transpose:
        kw["padding"] = _tup(rng, d, 0, 2)
        s, dl = _each(stride, d), _each(dilation, d)
        op = tuple(_ri(rng, 0, max(a, b) - 1) for a, b in zip(s, dl, strict=True))
        if rng.random() < 0.5:
            kw["output_padding"] = op
        w = rng.standard_normal((cin, cout // groups) + k)
    else:
        r = rng.random()
        kw["padding"] = "same" if r < 0.2 else "valid" if r < 0.3 else _tup(rng, d, 0, 2)
        w = rng.standard_normal((cout, cin // groups) + k)
    x = rng.standard_normal(((n,) if rng.random() < 0.85 else ()) + (cin,) + sp)
    b = rng.standard_normal(cout) if rng.random() < 0.7 else None
    mixed = ""  # the operand cast to another dtype: weight, bias or input
    # sometimes one thing wrong
    r = rng.random()
    if r < 0.04:
        x = rng.standard_normal(x.shape[: -d - 1] + (cin + 1,) + sp)
    elif r < 0.07:
        kw["padding"] = -1
    elif r < 0.09:
        kw["stride"] = 0
    elif r < 0.11:
        kw["groups"] = groups + 1
    elif r < 0.13 and b is not None:
        b = rng.standard_normal(cout + 1)
    elif r < 0.15:
        x = x.reshape(x.shape[:-2] + (x.shape[-2] * x.shape[-1],))  # a rank short
    elif r < 0.17:
        kw["dilation"] = 0
    elif r < 0.19 and transpose:
        kw["output_padding"] = max(_each(stride, d))
    elif r < 0.21:
        w = w[..., 0] if rng.random() < 0.5 else w[None]
    elif r < 0.23 and not transpose:
        kw.update(padding="same", stride=2)
    elif r < 0.24:
        kw["padding"] = "full"
    elif r < 0.26:
        x = rng.standard_normal(x.shape[:-1] + (0,))
    elif r < 0.28 and not transpose:
        kw.update(padding=0, dilation=3)
        w = rng.standard_normal(w.shape[:2] + (3,) * d)
    elif r < 0.33:
        mixed = str(rng.choice(["weight", "bias", "input"]))
    elif r < 0.35:
        kw[str(rng.choice(["stride", "dilation"]))] = (1,) * (d + 1)
    elif r < 0.36 and not isinstance(kw["padding"], str):
        kw["padding"] = (0,) * (d + 1)
    elif r < 0.38:  # no output channels
        w = w[:0] if not transpose else w[:, :0]
        b = None if b is None else b[:0]
    elif r < 0.39 and b is not None:
        b = b[None]
    if transpose and dt != "float64" and not _transpose_valid(x, w, kw, d):
        dt = "float64"  # torch's oneDNN path skips the size checks of lower precisions
    name = f"conv{'_transpose' if transpose else ''}{d}d"

    def call(lib, m, x, w, b):
        other = lib.float32 if x.dtype == lib.float64 else lib.float64
        if mixed == "weight":
            w = w.to(other)
        elif mixed == "bias" and b is not None:
            b = b.to(other)
        elif mixed == "input":
            x = x.to(other)
        named = dict(kw)  # (a local mapping: the error path reads which names were passed)
        return getattr(lib.nn.functional, name)(x, w, b, **named)

    layout = _layout(rng)
    bs = None if b is None else b.shape
    label = f"{i}: {name} {dt} mixed={mixed} x{x.shape} w{w.shape} b{bs} {layout} {kw}"
    return Case(label, call, [x, w, b], dt, layout=layout)


def _conv_module(rng, i):
    d = _ri(rng, 1, 3)
    dt = _dtype(rng)
    transpose = rng.random() < 0.3
    groups = _ri(rng, 1, 2)
    cin, cout = groups * _ri(rng, 1, 2), groups * _ri(rng, 1, 2)
    k = _tup(rng, d, 1, 3)
    kw = dict(groups=groups, bias=bool(rng.random() < 0.7))
    if rng.random() < 0.5:
        kw["stride"] = _tup(rng, d, 1, 2)
    if rng.random() < 0.4:
        kw["dilation"] = _tup(rng, d, 1, 2)
    if transpose:
        kw["padding"] = _tup(rng, d, 0, 2)
        if rng.random() < 0.4:
            kw["output_padding"] = 1 if rng.random() < 0.9 else (0,) * d
    else:
        kw["padding_mode"] = str(rng.choice(["zeros", "reflect", "replicate", "circular"]))
        r = rng.random()
        kw["padding"] = "same" if r < 0.25 else "valid" if r < 0.35 else _tup(rng, d, 0, 2)
    sp = tuple(_ri(rng, 2, 6) for _ in range(d))
    x = rng.standard_normal(((_ri(rng, 1, 2),) if rng.random() < 0.8 else ()) + (cin,) + sp)
    r = rng.random()  # sometimes one thing wrong
    if r < 0.03:
        kw["padding_mode"] = "wrap"
    elif r < 0.05:
        kw["padding_mode"] = "reflect"  # (a transposed convolution takes zeros only)
    elif r < 0.07:
        kw["padding"] = "same" if rng.random() < 0.7 else "full"
        kw["stride"] = 2
    elif r < 0.09:
        cin += 1  # not divisible by groups, or a wrong input
    elif r < 0.1:
        kw["groups"] = 0
    size = None
    if transpose and rng.random() < 0.2 and not isinstance(kw["padding"], str):
        # forward's output_size: the default size plus 0 to stride (stride - 1 at most is valid)
        dl, s = _each(kw.get("dilation", 1), d), _each(kw.get("stride", 1), d)
        p, kk = _each(kw["padding"], d), _each(k, d)
        size = [
            (m - 1) * a - 2 * b + c * (e - 1) + 1
            for m, a, b, c, e in zip(sp, s, p, dl, kk, strict=True)
        ]
        size = [v + _ri(rng, 0, a) for v, a in zip(size, s, strict=True)]
        kw.pop("output_padding", None)
    if transpose and dt != "float64":
        w = np.zeros((cin, cout // groups) + _each(k, d))
        if not _transpose_valid(x, w, kw, d):
            dt = "float64"  # as in _conv
    name = f"Conv{'Transpose' if transpose else ''}{d}d"

    def build(lib, dtype):
        return getattr(lib.nn, name)(cin, cout, k, dtype=dtype, **kw)

    def call(lib, m, x):
        return m(x) if size is None else m(x, output_size=size)

    layout = _layout(rng)
    label = f"{i}: {name}({cin}, {cout}, {k}, {kw}) {dt} x{x.shape} {layout} size={size}"
    return Case(label, call, [x], dt, build, layout=layout)


# ------------------------------------------------------------------------------------- pooling


def _pool(rng, i):
    fam = str(rng.choice(["max", "max", "avg", "avg", "lp", "amax", "aavg", "unpool", "fold"]))
    d = _ri(rng, 1, 3)
    dt = _dtype(rng)
    C = _ri(rng, 1, 3)
    n = _ri(rng, 0, 2) if rng.random() < 0.1 else _ri(rng, 1, 2)
    batch = (n, C) if rng.random() < 0.8 else (C,)
    sp = tuple(_ri(rng, 1, 7) for _ in range(d))
    x = rng.standard_normal(batch + sp)
    kw = {}
    if fam == "max":
        name = f"max_pool{d}d"
        k = _tup(rng, d, 1, 3)
        kw = dict(kernel_size=k, stride=_tup(rng, d, 1, 3) if rng.random() < 0.7 else None)
        kmin = min(_each(k, d))
        kw["padding"] = _tup(rng, d, 0, kmin // 2 + (rng.random() < 0.05))
        kw["dilation"] = _tup(rng, d, 1, 2) if rng.random() < 0.4 else 1
        kw["ceil_mode"] = bool(rng.random() < 0.5)
        kw["return_indices"] = bool(rng.random() < 0.4)
    elif fam == "avg":
        name = f"avg_pool{d}d"
        k = _tup(rng, d, 1, 3)
        kw = dict(kernel_size=k, stride=_tup(rng, d, 1, 3) if rng.random() < 0.7 else None)
        kw["padding"] = _tup(rng, d, 0, min(_each(k, d)) // 2 + (rng.random() < 0.05))
        kw["ceil_mode"] = bool(rng.random() < 0.5)
        kw["count_include_pad"] = bool(rng.random() < 0.5)
        if d > 1 and rng.random() < 0.3:
            kw["divisor_override"] = _ri(rng, 0 if rng.random() < 0.1 else 1, 3)
    elif fam == "lp":
        d = min(d, 2)
        x = rng.standard_normal(batch + sp[:d])
        name = f"lp_pool{d}d"
        norm = float(rng.choice([1.0, 2.0, 3.0, 1.5, np.inf]))
        kw = dict(norm_type=norm, kernel_size=_tup(rng, d, 1, 3))
        kw["stride"] = _tup(rng, d, 1, 3) if rng.random() < 0.6 else None
        kw["ceil_mode"] = bool(rng.random() < 0.5)
    elif fam in ("amax", "aavg"):
        name = f"adaptive_{'max' if fam == 'amax' else 'avg'}_pool{d}d"
        size = _tup(rng, d, 0 if rng.random() < 0.05 else 1, 5)
        if d > 1 and rng.random() < 0.3:
            size = tuple(None if rng.random() < 0.4 else s for s in _each(size, d))
        kw = dict(output_size=size)
        if fam == "amax":
            kw["return_indices"] = bool(rng.random() < 0.5)
    elif fam == "unpool":
        d = min(d, 2)
        k = _tup(rng, d, 1, 3)
        stride = _tup(rng, d, 1, 3) if rng.random() < 0.7 else None
        # windows that tile the input: torch writes out of bounds for an index past the output
        steps = zip(_each(k, d), _each(stride or k, d), strict=True)
        sp = tuple((_ri(rng, 1, 3) - 1) * b + a for a, b in steps)
        x = rng.standard_normal(batch + sp)
        size = None
        if rng.random() < 0.3:  # an output size within (default - stride, default + stride)
            s, kk = _each(stride or k, d), _each(k, d)
            size = tuple(
                (max((m - a) // b + 1, 1) - 1) * b + a + _ri(rng, 0, b - 1)
                for m, a, b in zip(sp[:d], kk, s, strict=True)
            )
            if rng.random() < 0.2:
                size = tuple(v + 5 for v in size)

        def call(lib, m, x):
            out, idx = getattr(lib.nn.functional, f"max_pool{d}d")(
                x, k, stride, return_indices=True
            )
            return getattr(lib.nn.functional, f"max_unpool{d}d")(
                out, idx, k, stride, output_size=size
            )

        label = f"{i}: max_unpool{d}d {dt} k={k} s={stride} size={size} x{x.shape}"
        return Case(label, call, [x], dt)
    else:
        size, k = _tup(rng, 2, 1, 6), _tup(rng, 2, 1, 3)
        kw = dict(
            dilation=_tup(rng, 2, 1, 2), padding=_tup(rng, 2, 0, 2), stride=_tup(rng, 2, 1, 2)
        )
        blocks = 1
        for o, kk, dd, pp, ss in zip(*(_each(v, 2) for v in (size, k, *kw.values())), strict=True):
            blocks *= max((o + 2 * pp - dd * (kk - 1) - 1) // ss + 1, 0)
        rows = C * int(np.prod(_each(k, 2)))
        if rng.random() < 0.5:
            name, x = "fold", rng.standard_normal(batch[:-1] + (rows, blocks))
            kw = dict(output_size=size, kernel_size=k, **kw)
        else:
            name = "unfold"
            x = rng.standard_normal(batch + tuple(_ri(rng, 1, 6) for _ in range(2)))
            kw = dict(kernel_size=k, **kw)

    r = rng.random()  # sometimes one thing wrong
    if r < 0.1:
        key = str(rng.choice(sorted(k for k in kw if k in _BREAK)))
        kw[key] = _BREAK[key][_ri(rng, 0, len(_BREAK[key]) - 1)]
    elif r < 0.13:
        x = x[0] if x.ndim > 2 and rng.random() < 0.5 else x[None, None]
    elif r < 0.15:
        x = rng.standard_normal(x.shape[:-1] + (0,))

    def call(lib, m, x):
        named = dict(kw)
        return getattr(lib.nn.functional, name)(x, **named)

    layout = _layout(rng)
    return Case(f"{i}: {name} {dt} x{x.shape} {layout} {kw}", call, [x], dt, layout=layout)


_BREAK = {  # invalid values of pooling arguments
    "kernel_size": [0, -1, (2, 0), (1, 2, 3, 4)],
    "stride": [0, -2, (1, 0)],
    "padding": [-1, 5, (0, -1)],
    "dilation": [0, -1, (1, 0)],
    "output_size": [-1, (2, -3), (1, 2, 3, 4)],
    "norm_type": [0.0, -1.0],
    "divisor_override": [0, -1],
}


def _layout(rng):
    return str(rng.choice(["", "", "", "channels_last", "transposed", "strided"]))


N_CONV, N_MODULE, N_POOL = 600, 240, 600


def _cases(kind, lo, hi):
    make = {"conv": _conv, "module": _conv_module, "pool": _pool}[kind]
    return [
        make(np.random.default_rng(zlib.crc32(f"{kind}/{i}".encode())), i) for i in range(lo, hi)
    ]


@pytest.mark.parametrize("chunk", range(4))
def test_functional_convolutions_match_torch(chunk):
    step = N_CONV // 4
    for case in _cases("conv", chunk * step, chunk * step + step):
        _compare(case)


@pytest.mark.parametrize("chunk", range(2))
def test_convolution_modules_match_torch(chunk):
    step = N_MODULE // 2
    for case in _cases("module", chunk * step, chunk * step + step):
        _compare(case)


@pytest.mark.parametrize("chunk", range(4))
def test_pooling_unpooling_and_folding_match_torch(chunk):
    step = N_POOL // 4
    for case in _cases("pool", chunk * step, chunk * step + step):
        _compare(case)


# ------------------------------------------------------------------------ grids of edge cases


def _outcome(lib, fn):
    """(shape, dtype, strides) of fn(lib)'s result (its first, for a tuple), or the error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(lib)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e)
    out = out[0] if isinstance(out, tuple) else out
    return tuple(out.shape), str(out.dtype).split(".")[-1], out.stride()


def _same_outcomes(calls):
    bad = []
    for label, fn in calls:
        got, want = _outcome(minitorch, fn), _outcome(torch, fn)
        if got != want:
            bad.append(f"{label}: {got} != {want}")
    assert not bad, "\n".join(bad[:10])


def _adaptive_calls():
    for dt in ("float64", "int64", "bool"):
        for n in (1, 2, 3):
            for lead in ((3,), (2, 3), (0, 3), (2, 0)):
                for sp in ((4,) * n, (0,) + (4,) * (n - 1), (4,) * (n - 1) + (0,), (6,) * n):
                    sizes = (
                        2,
                        1,
                        0,
                        -1,
                        (2,) * n,
                        (2,) * (n + 1),
                        (1,) * n,
                        (-1,) + (2,) * (n - 1),
                    )
                    for size in sizes + (((None,) * n,) if n > 1 else ()):
                        for kind in ("avg", "max"):
                            name = f"adaptive_{kind}_pool{n}d"

                            def fn(lib, name=name, shape=lead + sp, dt=dt, size=size):
                                x = lib.ones(shape, dtype=getattr(lib, dt))
                                return getattr(lib.nn.functional, name)(x, size)

                            yield f"{name} {dt} {lead + sp} {size}", fn


def test_adaptive_pooling_checks_in_torch_order():
    """Integer and boolean inputs are refused after the size checks (an empty average is
    returned); the 1-d pools parse their size first; average pools check it before the input."""
    _same_outcomes(list(_adaptive_calls()))


def _transposed_calls():
    F = "conv_transpose{}d"
    for xdt, wdt, bdt in (
        ("float64", "float64", "float32"),
        ("float32", "float32", "float64"),
        ("float16", "float16", "float32"),
        ("float32", "float64", None),
        ("float64", "float32", None),
        ("float16", "float32", None),
    ):
        for n in (1, 2, 3):
            for lead, sp in (((1, 2), 5), ((2, 2), 5), ((0, 2), 5), ((2,), 5), ((1, 2), 0)):
                for kw in (
                    {},
                    {"groups": 2},
                    {"stride": 2},
                    {"dilation": 0},
                    {"stride": 2, "output_padding": 2},
                    {"padding": 3},
                    {"padding": 3, "dilation": 0},
                ):
                    g = kw.get("groups", 1)

                    def fn(lib, n=n, shape=lead + (sp,) * n, kw=kw, g=g, dts=(xdt, wdt, bdt)):
                        xdt, wdt, bdt = (None if d is None else getattr(lib, d) for d in dts)
                        x = lib.ones(shape, dtype=xdt)
                        w = lib.ones((2, 1) + (2,) * n, dtype=wdt)
                        b = None if bdt is None else lib.ones(g, dtype=bdt)
                        named = dict(kw)
                        return getattr(lib.nn.functional, F.format(n))(x, w, b, **named)

                    onednn = xdt == wdt and xdt != "float64" and lead[0] == 2
                    if not (onednn and ("dilation" in kw or "padding" in kw)):
                        label = f"{F.format(n)} {xdt} {wdt} {bdt} {lead} {sp} {kw}"
                        yield label, fn, (xdt, wdt, bdt)


def test_transposed_convolution_checks_match_torch():
    """A bias of another dtype (refused by the 3-d and oneDNN kernels), the order of the empty
    input, dtype, dilation and output padding checks, an empty batch (no checks, an empty
    result), a weight without output channels."""
    bad = []
    for label, fn, dts in _transposed_calls():
        got, want = _outcome(minitorch, fn), _outcome(torch, fn)
        if got != want and not (slow_here(dts[0]) and _slow_kernel_outcome(fn, dts, got, want)):
            bad.append(f"{label}: {got} != {want}")
    assert not bad, "\n".join(bad[:10])
    calls = []
    for n in (1, 2, 3):
        for groups in (1, 2):

            def fn(lib, n=n, groups=groups):
                x = lib.ones((2, 2) + (3,) * n, dtype=lib.float64)
                w = lib.ones((2, 0) + (2,) * n, dtype=lib.float64)
                return getattr(lib.nn.functional, f"conv_transpose{n}d")(x, w, groups=groups)

            calls.append((f"no output channels {n}d groups={groups}", fn))
    _same_outcomes(calls)


def _slow_kernel_outcome(fn, dts, got, want):
    """Whether torch's outcome here (want) is its slow kernels' where its oneDNN kernel gives
    minitorch's (got), for a bfloat16/float16 input that this host's torch convolves slowly (an
    AVX2 AMD EPYC): minitorch refuses the weight or bias of another dtype as oneDNN does (its
    message asserted); torch's slow kernels name the scalar types, or check the sizes before the
    dtypes (and add a bias cast to the input's dtype): then torch's outcome is the one with that
    operand cast, and minitorch's outcome with it cast must be it too."""
    xdt, wdt, bdt = dts
    what, other = ("weight", wdt) if wdt != xdt else ("bias", bdt)
    if got != ("RuntimeError", onednn_refusal(xdt, what, other)):
        return False
    if want[0] == "RuntimeError" and slow_variant(got[1], want[1]):
        return True
    cast = (xdt, xdt, bdt) if what == "weight" else (xdt, wdt, xdt)

    def cast_fn(lib):
        return fn(lib, dts=cast)

    return _outcome(torch, cast_fn) == want == _outcome(minitorch, cast_fn)


def test_empty_batch_transposed_convolution_gradients_match_torch():
    for kw in ({"dilation": 0}, {"stride": 2, "output_padding": 2}, {}):
        got, want = (
            _run(lib, Case(f"empty {kw}", _empty_transposed(kw), [], "float64"), None)[1]
            for lib in (minitorch, torch)
        )
        assert [o[0].shape for o in got["out"]] == [o[0].shape for o in want["out"]], kw
        for g, w in zip(got["grads"], want["grads"], strict=True):
            np.testing.assert_array_equal(g, w, err_msg=str(kw))


def _empty_transposed(kw):
    def call(lib, m):
        x = lib.ones((0, 2, 3, 4), dtype=lib.float64, requires_grad=True)
        w = lib.ones((2, 1, 2, 2), dtype=lib.float64, requires_grad=True)
        b = lib.ones(1, dtype=lib.float64, requires_grad=True)
        out = lib.nn.functional.conv_transpose2d(x, w, b, **kw)
        return out, *lib.autograd.grad(out.sum(), (x, w, b))

    return call


def _pool3d_layout_calls():
    for shape in ((2, 4, 6, 2), (1, 7, 1, 3), (2, 1, 6, 2), (2, 3, 4, 1), (2, 3, 4, 4, 4)):
        for name, args in (
            ("max_pool3d", (2,)),
            ("max_pool3d", (0,)),
            ("avg_pool3d", (2,)),
            ("avg_pool3d", (1,)),
            ("adaptive_avg_pool3d", (2,)),
            ("adaptive_avg_pool3d", (3,)),
            ("adaptive_max_pool3d", (2,)),
            ("adaptive_max_pool3d", (3,)),
            ("lp_pool3d", (2.0, 2)),
            ("max_pool2d", (2,)),
            ("avg_pool2d", (2,)),
        ):

            def fn(lib, shape=shape, name=name, args=args):
                fmt = lib.channels_last if len(shape) == 4 else lib.channels_last_3d
                x = lib.arange(float(np.prod(shape))).reshape(shape)
                return getattr(lib.nn.functional, name)(x.contiguous(memory_format=fmt), *args)

            yield f"{name}{args} channels-last {shape}", fn


def test_channels_last_inputs_of_3d_pools_match_torch():
    """An unbatched (4-d) channels-last input: max_pool3d refuses it, the other 3-d pools give
    row-major results, as the adaptive max pool does for a channels-last-3d one."""
    _same_outcomes(list(_pool3d_layout_calls()))


def _avg_divisor_calls():
    for n in (2, 3):
        for shape in (
            (2, 3) + (5,) * n,
            (2, 3) + (2,) * n,
            (5,),
            (2,) * (n + 3),
            (2, 0) + (4,) * n,
        ):
            for kw in (
                {"kernel_size": 3},
                {"kernel_size": 3, "padding": 2},
                {"kernel_size": 0},
                {"kernel_size": 2, "stride": 0},
                {"kernel_size": (3,) * (n + 1)},
                {"kernel_size": 2, "padding": (1,) * (n + 1)},
            ):
                for dv in (0, -1, None):

                    def fn(lib, n=n, shape=shape, kw=kw, dv=dv):
                        named = dict(kw, divisor_override=dv)
                        return getattr(lib.nn.functional, f"avg_pool{n}d")(lib.ones(shape), **named)

                    yield f"avg_pool{n}d {shape} {kw} divisor={dv}", fn


def test_average_pooling_divisor_and_lengths_checked_first():
    """avg_pool2d/3d check the lengths of their size arguments, then a zero divisor_override
    (avg_pool3d its input's rank between the two), before anything else."""
    _same_outcomes(list(_avg_divisor_calls()))


def _max_pool_rank_calls():
    for name in ("max_pool1d", "max_pool2d", "max_pool3d"):
        for shape in ((5,), (2, 3, 4, 4, 4, 4), (2, 3, 4, 4, 4)):
            for layout in (False, True):
                for kw in (
                    {"kernel_size": 2},
                    {"kernel_size": (2, 2, 2)},
                    {"kernel_size": 0},
                    {"kernel_size": 2, "return_indices": True},
                    {"kernel_size": "a"},
                    {"kernel_size": 2, "stride": "x"},
                    {"kernel_size": 2, "dilation": (1, 1.5)},
                ):

                    def fn(lib, name=name, shape=shape, layout=layout, kw=kw):
                        x = lib.ones(shape)
                        if layout and len(shape) == 5:
                            x = x.contiguous(memory_format=lib.channels_last_3d)
                        named = dict(kw)
                        return getattr(lib.nn.functional, name)(x, **named)

                    yield f"{name} {shape} channels-last={layout} {kw}", fn


def test_max_pooling_reads_its_arguments_before_the_rank():
    """The parser's TypeErrors and the sizes' lengths come before the rank check; max_pool2d
    refuses a channels-last-3d input before it."""
    _same_outcomes(list(_max_pool_rank_calls()))


if __name__ == "__main__":  # a tally of the sweep: python <this file> [kind]
    import sys

    for kind, n in (("conv", N_CONV), ("module", N_MODULE), ("pool", N_POOL)):
        if len(sys.argv) > 1 and kind not in sys.argv[1:]:
            continue
        bad = 0
        for case in _cases(kind, 0, n):
            try:
                _compare(case)
            except AssertionError as e:
                bad += 1
                print("MISMATCH", str(e).splitlines()[0][:300])
        print(f"{kind}: {n - bad}/{n} match")
