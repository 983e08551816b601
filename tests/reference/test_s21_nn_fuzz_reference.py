"""A seeded, small slice of session 21's differential nn fuzzer: random layers and inputs built
the same way in torch and minitorch (torch's state_dict loaded into minitorch's module), with
outputs, input and parameter gradients, buffers, reprs and error type + message compared."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _ri(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def _tup(rng, d, lo, hi):
    return _ri(rng, lo, hi) if rng.random() < 0.5 else tuple(_ri(rng, lo, hi) for _ in range(d))


def _x(rng, shape):
    return np.asarray(rng.standard_normal(shape))


def _conv(rng):
    d = _ri(rng, 1, 3)
    transpose = rng.random() < 0.4
    g = _ri(rng, 1, 2)
    kw = dict(stride=_tup(rng, d, 1, 2), dilation=_tup(rng, d, 1, 2), groups=g)
    if transpose:
        kw["padding"] = _tup(rng, d, 0, 1)
    else:
        kw["padding"] = _tup(rng, d, 0, 2) if rng.random() < 0.8 else "valid"
        kw["padding_mode"] = str(rng.choice(["zeros", "reflect", "replicate", "circular"]))
    shape = (_ri(rng, 0, 2), g * _ri(rng, 1, 2)) + tuple(_ri(rng, 3, 5) for _ in range(d))
    name = f"ConvTranspose{d}d" if transpose else f"Conv{d}d"
    return name, (shape[1], g * _ri(rng, 1, 2), _tup(rng, d, 1, 3)), kw, [_x(rng, shape)]


def _pool(rng):
    d = _ri(rng, 1, 3)
    kind = str(rng.choice(["Max", "Avg", "AdaptiveMax", "AdaptiveAvg", "MaxUnpool"]))
    shape = (_ri(rng, 0, 2), _ri(rng, 1, 2)) + tuple(_ri(rng, 3, 6) for _ in range(d))
    if kind.startswith("Adaptive"):
        return f"{kind}Pool{d}d", (_tup(rng, d, 1, 4),), {}, [_x(rng, shape)]
    kw = dict(kernel_size=_tup(rng, d, 1, 3), stride=_tup(rng, d, 1, 2), padding=0)
    if kind == "MaxUnpool":
        return "MaxUnpool", (d, kw), {}, [_x(rng, shape)]
    kw["ceil_mode"] = bool(rng.random() < 0.5)
    if kind == "Avg":
        kw["count_include_pad"] = bool(rng.random() < 0.5)
    return f"{kind}Pool{d}d", (), kw, [_x(rng, shape)]


def _norm(rng):
    d = _ri(rng, 1, 3)
    c = _ri(rng, 1, 3)
    kind = str(rng.choice(["BatchNorm", "InstanceNorm"]))
    kw = dict(
        momentum=None if rng.random() < 0.3 else 0.5,
        affine=bool(rng.random() < 0.5),
        track_running_stats=bool(rng.random() < 0.7),
    )
    shape = (_ri(rng, 2, 3), c) + tuple(_ri(rng, 2, 3) for _ in range(d))
    return f"{kind}{d}d", (c,), kw, [_x(rng, shape) * 2 + 0.5]


CASES = {"conv": _conv, "pool": _pool, "norm": _norm}


def _run(lib, name, args, kw, arrays, sd):
    nn = lib.nn
    if name == "MaxUnpool":
        d, pkw = args
        m = getattr(nn, f"MaxUnpool{d}d")(pkw["kernel_size"], pkw["stride"])
    else:
        m = getattr(nn, name)(*args, **kw)
    m = m.double()
    if sd is None:
        sd = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    else:
        m.load_state_dict({k: minitorch.tensor(v) for k, v in sd.items()})
    x = lib.tensor(arrays[0], requires_grad=True)
    try:
        if name == "MaxUnpool":
            pool = getattr(lib.nn.functional, f"max_pool{d}d")
            y, idx = pool(x, pkw["kernel_size"], pkw["stride"], return_indices=True)
            outs = [m(y, idx)]
        elif name.startswith(("BatchNorm", "InstanceNorm")):
            outs = [m(x), m(x * 0.5 + 1)]
        else:
            outs = [m(x)]
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return sd, {"err": (type(e).__name__, str(e))}
    rng = np.random.default_rng(7)
    grads = [lib.tensor(rng.uniform(-1, 1, tuple(o.shape))) for o in outs]
    lib.autograd.backward(outs, grads)
    res = {"repr": repr(m), "out": [o.detach().numpy() for o in outs], "gx": x.grad.numpy()}
    res["pg"] = {k: p.grad.numpy() for k, p in m.named_parameters() if p.grad is not None}
    res["buf"] = {k: b.numpy() for k, b in m.named_buffers()}
    return sd, res


def _compare(got, want, label):
    if "err" in want or "err" in got:
        assert got.get("err") == want.get("err"), label
        return
    assert got["repr"] == want["repr"], label
    pairs = list(zip(got["out"], want["out"], strict=True)) + [(got["gx"], want["gx"])]
    pairs += [(got["pg"][k], v) for k, v in want["pg"].items()]
    pairs += [(got["buf"][k], v) for k, v in want["buf"].items()]
    for g, w in pairs:
        assert g.shape == w.shape, label
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9, err_msg=label)


@pytest.mark.parametrize("family", sorted(CASES))
def test_random_layers_match_torch(family):
    for i in range(40):
        rng = np.random.default_rng(zlib.crc32(f"{family}/{i}".encode()))
        name, args, kw, arrays = CASES[family](rng)
        label = f"{family} case {i}: {name}{args} {kw} {[a.shape for a in arrays]}"
        torch.manual_seed(i)
        sd, want = _run(torch, name, args, kw, arrays, None)
        got = _run(minitorch, name, args, kw, arrays, sd)[1]
        _compare(got, want, label)


@pytest.mark.parametrize("seed", range(30))
def test_random_losses_match_torch(seed):
    rng = np.random.default_rng(seed)
    C, N = _ri(rng, 1, 4), _ri(rng, 0, 3)
    x = _x(rng, (N, C))
    red = str(rng.choice(["mean", "sum", "none"]))
    p = np.asarray(rng.uniform(0.1, 1, (N, C)))
    p = p / p.sum(1, keepdims=True)
    y = rng.integers(0, C, (N,))
    kw = dict(reduction=red)
    if rng.random() < 0.5:
        kw["weight"] = np.asarray(rng.uniform(0.5, 2, (C,)))
    ii = int(rng.choice([-100, -1, -7]))
    smooth = float(rng.choice([0.0, 0.2]))
    res = []
    for lib in (torch, minitorch):
        F = lib.nn.functional
        wkw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        xs = lib.tensor(x, requires_grad=True)
        a = F.cross_entropy(xs, lib.tensor(p), ignore_index=ii, label_smoothing=smooth, **wkw)
        b = F.cross_entropy(xs, lib.tensor(y), label_smoothing=smooth, **wkw)
        c = F.multi_margin_loss(xs, lib.tensor(y), reduction="sum" if red == "mean" else red)
        outs = [a, b, c]
        lib.autograd.backward(outs, [lib.ones_like(o) for o in outs])
        res.append([o.detach().numpy() for o in outs] + [xs.grad.numpy()])
    for k, (w, g) in enumerate(zip(*res, strict=True)):
        if k == 2 and N == 0 and red != "none":
            # torch 2.13's multi_margin_loss of an empty batch, summed, reads memory it never
            # wrote (seed 29 gave 0 in one run and 1.4965 in another): the sum of nothing is 0
            assert g == 0, f"seed {seed} #{k}"
            continue
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-10, err_msg=f"seed {seed} #{k}")


@pytest.mark.parametrize("seed", range(40))
def test_random_interpolate_and_errors_match_torch(seed):
    rng = np.random.default_rng(seed + 1000)
    d = _ri(rng, 1, 3)
    modes = ["nearest", "nearest-exact", "area", ("linear", "bilinear", "trilinear")[d - 1]]
    mode = str(rng.choice(modes + ["bicubic"]))
    shape = (_ri(rng, 1, 2), _ri(rng, 0 if rng.random() < 0.1 else 1, 2))
    shape += tuple(_ri(rng, 1, 4) for _ in range(d))
    kw = dict(mode=mode, scale_factor=float(rng.choice([0.5, 0.7, 2.0, 2.5])))
    if mode in ("linear", "bilinear", "trilinear", "bicubic"):
        kw["align_corners"] = bool(rng.random() < 0.5)
    x = _x(rng, shape)
    res = []
    for lib in (torch, minitorch):
        xs = lib.tensor(x, requires_grad=True)
        try:
            out = lib.nn.functional.interpolate(xs, **kw)
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            res.append((type(e).__name__, str(e)))
            continue
        res.append(out.detach().numpy())
    if isinstance(res[0], tuple) or isinstance(res[1], tuple):
        assert res[1] == res[0], f"seed {seed}: {kw} {shape}"
    else:
        np.testing.assert_allclose(res[1], res[0], rtol=1e-7, atol=1e-10, err_msg=str(kw))
