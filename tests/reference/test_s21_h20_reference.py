"""Same program, same numbers (session 21, h20): a seeded slice of a differential fuzzer that
builds layers and runs nn.init functions after manual_seed in torch and minitorch and compares
every parameter and buffer bit for bit, then runs short float64 training programs written once
against the `torch` API in both libraries and compares the loss of every step."""

import math
import random
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401


def _state(module):
    out = {}
    for key, value in module.state_dict().items():
        value = value.detach()
        if value.dtype.is_floating_point and value.dtype.itemsize < 4:
            value = value.float()
        out[key] = value.numpy().copy()
    return out


def _layer_case(r: random.Random):
    """(description, builder(lib) -> module) for a random layer configuration."""
    b = r.random() < 0.7
    kind = r.randrange(12)
    if kind == 0:
        i, o = r.randint(0, 6), r.randint(1, 6)
        return f"Linear({i}, {o}, {b})", lambda L: L.nn.Linear(i, o, bias=b)
    if kind == 1:
        a, c, o = r.randint(1, 4), r.randint(1, 4), r.randint(1, 4)
        return f"Bilinear({a}, {c}, {o})", lambda L: L.nn.Bilinear(a, c, o, bias=b)
    if kind in (2, 3):
        nd, g = r.randint(1, 3), r.choice([1, 2])
        i, o, k = g * r.randint(1, 3), g * r.randint(1, 3), r.randint(1, 3)
        cls = f"{'ConvTranspose' if kind == 3 else 'Conv'}{nd}d"
        return f"{cls}({i}, {o}, {k}, g={g})", lambda L: getattr(L.nn, cls)(
            i, o, k, groups=g, bias=b
        )
    if kind == 4:
        n, d = r.randint(2, 8), r.randint(1, 5)
        p = r.choice([None, r.randint(-n, n - 1)])
        return f"Embedding({n}, {d}, {p})", lambda L: L.nn.Embedding(n, d, padding_idx=p)
    if kind == 5:
        cls = r.choice(["RNN", "LSTM", "GRU"])
        i, h, nl, bi = r.randint(1, 4), r.randint(2, 5), r.randint(1, 3), r.random() < 0.5
        extra = {"proj_size": r.randint(1, h - 1)} if cls == "LSTM" and r.random() < 0.4 else {}
        return f"{cls}({i}, {h}, {nl}, {bi}, {extra})", lambda L: getattr(L.nn, cls)(
            i, h, nl, bias=b, bidirectional=bi, **extra
        )
    if kind == 6:
        cls = r.choice(["RNNCell", "LSTMCell", "GRUCell"])
        i, h = r.randint(1, 4), r.randint(1, 5)
        return f"{cls}({i}, {h})", lambda L: getattr(L.nn, cls)(i, h, bias=b)
    if kind == 7:
        nh = r.choice([1, 2])
        e, kd, vd = nh * r.randint(1, 4), r.choice([None, 3]), r.choice([None, 5])
        bkv = r.random() < 0.4
        return f"MHA({e}, {nh}, {kd}, {vd}, {bkv})", lambda L: L.nn.MultiheadAttention(
            e, nh, bias=b, kdim=kd, vdim=vd, add_bias_kv=bkv
        )
    if kind == 8:
        nh = r.choice([1, 2])
        e, ff = nh * r.randint(1, 4), r.randint(1, 10)
        return f"Transformer({e}, {nh}, {ff})", lambda L: L.nn.Transformer(e, nh, 1, 1, ff)
    if kind == 9:
        c, af = r.randint(1, 5), r.random() < 0.7
        cls = r.choice(["BatchNorm1d", "BatchNorm2d", "InstanceNorm3d"])
        return f"{cls}({c}, {af})", lambda L: getattr(L.nn, cls)(c, affine=af)
    if kind == 10:
        s = tuple(r.randint(1, 4) for _ in range(r.randint(1, 2)))
        cls = r.choice(["LayerNorm", "RMSNorm"])
        return f"{cls}({s})", lambda L: getattr(L.nn, cls)(s)
    f, nc = r.randint(2, 8), r.randint(6, 20)
    c1 = r.randint(1, nc - 3)
    c2 = r.randint(c1 + 1, nc - 1)
    return f"ALS({f}, {nc}, {c1}, {c2})", lambda L: L.nn.AdaptiveLogSoftmaxWithLoss(
        f, nc, [c1, c2], head_bias=b
    )


def _build(lib, seed, build, dtype):
    lib.set_default_dtype(getattr(lib, dtype))
    try:
        lib.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state = _state(build(lib))
        return state, lib.rand(3, dtype=lib.float64).numpy()
    finally:
        lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("case_seed", range(4))
def test_layers_get_torchs_initial_weights(case_seed):
    r = random.Random(case_seed)
    for _ in range(60):
        desc, build = _layer_case(r)
        seed = r.randrange(2**32)
        dtype = r.choice(["float32", "float32", "float64"])
        (ts, tafter), (ms, mafter) = (_build(lib, seed, build, dtype) for lib in (torch, minitorch))
        assert list(ts) == list(ms), desc
        for key in ts:
            np.testing.assert_array_equal(ms[key], ts[key], err_msg=f"{desc} {key} {dtype}")
            assert ms[key].dtype == ts[key].dtype, (desc, key)
        np.testing.assert_array_equal(mafter, tafter, err_msg=f"{desc}: stream after")


_INITS = {
    "uniform_": lambda r: {"a": r.choice([-1.0, 0.0]), "b": r.choice([0.5, 2.0])},
    "normal_": lambda r: {"mean": r.choice([0.0, 1.5]), "std": r.choice([0.02, 1.0])},
    "xavier_uniform_": lambda r: {"gain": r.choice([1.0, math.sqrt(2)])},
    "xavier_normal_": lambda r: {"gain": r.choice([1.0, 0.5])},
    "kaiming_uniform_": lambda r: {
        "a": r.choice([0, math.sqrt(5)]),
        "mode": r.choice(["fan_in", "fan_out"]),
        "nonlinearity": r.choice(["leaky_relu", "relu", "tanh", "selu"]),
    },
    "kaiming_normal_": lambda r: {"mode": r.choice(["fan_in", "fan_out"])},
    "sparse_": lambda r: {"sparsity": r.choice([0.1, 0.5]), "std": r.choice([0.01, 1.0])},
    "eye_": lambda r: {},
    "dirac_": lambda r: {"groups": r.choice([1, 2])},
    "orthogonal_": lambda r: {"gain": r.choice([1.0, 2.0])},
}


def _run_init(lib, seed, fn, shape, dtype, kwargs, strided):
    lib.manual_seed(seed)
    base_shape = shape[:-1] + (2 * shape[-1],) if strided else shape
    base = lib.zeros(base_shape, dtype=getattr(lib, dtype))
    target = base[..., ::2] if strided else base
    try:
        getattr(lib.nn.init, fn)(target, **kwargs)
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return (type(e).__name__, str(e)), None
    out = base.float() if dtype in ("float16", "bfloat16") else base
    return out.numpy().copy(), lib.rand(2, dtype=lib.float64).numpy()


@pytest.mark.parametrize("case_seed", range(3))
def test_init_functions_draw_torchs_numbers(case_seed):
    r = random.Random(100 + case_seed)
    for _ in range(150):
        fn = r.choice(sorted(_INITS))
        nd = 2 if fn in ("eye_", "sparse_") else (r.randint(3, 5) if fn == "dirac_" else None)
        nd = nd or r.randint(1, 4)
        shape = tuple(r.choice([1, 2, 3, 5, 17]) for _ in range(nd))
        dtype = r.choice(["float32", "float64", "float16", "bfloat16"])
        strided = fn != "orthogonal_" and r.random() < 0.3
        kwargs = _INITS[fn](r)
        seed = r.randrange(1000)
        (tv, ta), (mv, ma) = (
            _run_init(lib, seed, fn, shape, dtype, kwargs, strided) for lib in (torch, minitorch)
        )
        desc = f"{fn}{shape} {dtype} {kwargs} strided={strided}"
        if isinstance(tv, tuple) or isinstance(mv, tuple):
            assert tv == mv, desc
            continue
        if fn == "orthogonal_":  # LAPACK's QR rounds differently from NumPy's: round-off only
            tol = 1e-13 if dtype == "float64" else 2e-6
            np.testing.assert_allclose(mv, tv, rtol=0, atol=tol, err_msg=desc)
        else:
            np.testing.assert_array_equal(mv, tv, err_msg=desc)
        np.testing.assert_array_equal(ma, ta, err_msg=f"{desc}: stream after")


# Training programs, written once against the torch API (`L` is torch or minitorch)


def _mlp(L, steps):
    nn = L.nn
    model = nn.Sequential(
        nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 32), nn.Tanh(),
        nn.Dropout(0.2), nn.Linear(32, 4),
    )  # fmt: skip
    x, y = L.randn(64, 10), L.randint(0, 4, (64,))
    opt = L.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    for _ in range(steps):
        idx = L.randperm(64)[:16]
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x[idx]), y[idx], label_smoothing=0.1)
        loss.backward()
        opt.step()
        yield loss.item()


def _cnn(L, steps):
    nn = L.nn
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, stride=2), nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(), nn.Dropout(0.1), nn.Linear(16, 5),
    )  # fmt: skip
    x, y = L.randn(32, 3, 12, 12), L.randint(0, 5, (32,))
    opt = L.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-3)
    for _ in range(steps):
        idx = L.randint(0, 32, (8,))
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
        loss.backward()
        opt.step()
        yield loss.item()
    model.eval()
    yield nn.functional.cross_entropy(model(x), y).item()


def _lstm(L, steps):
    nn = L.nn
    emb = nn.Embedding(20, 8, padding_idx=0)
    rnn = nn.LSTM(8, 12, num_layers=2, batch_first=True, dropout=0.2, bidirectional=True)
    head = nn.Linear(24, 1)
    params = [*emb.parameters(), *rnn.parameters(), *head.parameters()]
    x, y = L.randint(0, 20, (16, 7)), L.randn(16)
    opt = L.optim.Adam(params, lr=1e-2, amsgrad=True)
    for _ in range(steps):
        opt.zero_grad()
        h, _ = rnn(emb(x))
        loss = nn.functional.mse_loss(head(h[:, -1]).squeeze(-1), y)
        loss.backward()
        nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        yield loss.item()


def _transformer(L, steps):
    nn = L.nn
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.1)
    src, tgt, y = L.randn(7, 3, 8), L.randn(5, 3, 8), L.randn(5, 3, 8)
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    opt = L.optim.Adagrad(model.parameters(), lr=1e-2)
    for _ in range(steps):
        opt.zero_grad()
        loss = (model(src, tgt, tgt_mask=mask) - y).pow(2).mean()
        loss.backward()
        opt.step()
        yield loss.item()


def _mha_batch_first(L, steps):
    nn = L.nn
    mha = nn.MultiheadAttention(12, 3, dropout=0.2, batch_first=True, kdim=5, vdim=7)
    q, k, v = L.randn(4, 6, 12), L.randn(4, 8, 5), L.randn(4, 8, 7)
    pad = L.zeros(4, 8, dtype=L.bool)
    pad[:, -2:] = True
    opt = L.optim.NAdam(mha.parameters(), lr=1e-2)
    for _ in range(steps):
        opt.zero_grad()
        out, w = mha(q, k, v, key_padding_mask=pad, average_attn_weights=False)
        loss = out.pow(2).mean() + w.std()
        loss.backward()
        opt.step()
        yield loss.item()


_PROGRAMS = {
    "mlp": _mlp,
    "cnn": _cnn,
    "lstm": _lstm,
    "transformer": _transformer,
    "mha_batch_first": _mha_batch_first,
}


@pytest.mark.parametrize("name", sorted(_PROGRAMS))
@pytest.mark.parametrize("seed", [0, 3])
def test_training_trace_float64(name, seed):
    traces = []
    for lib in (torch, minitorch):
        lib.set_default_dtype(lib.float64)
        try:
            lib.manual_seed(seed)
            traces.append(list(_PROGRAMS[name](lib, 5)))
        finally:
            lib.set_default_dtype(lib.float32)
    np.testing.assert_allclose(traces[1], traces[0], rtol=1e-10, err_msg=name)
