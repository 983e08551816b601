"""Session 23, seeded slices of the init / dropout / normalization fuzzers against torch."""

import random
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _np(t):
    t = t.detach()
    if "bfloat16" in str(t.dtype):
        t = t.float()
    return np.asarray(t.numpy())


def _init_case(r):
    fn = r.choice(
        ["uniform_", "normal_", "trunc_normal_", "xavier_uniform_", "xavier_normal_",
         "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_", "dirac_", "eye_"]
    )  # fmt: skip
    shape = tuple(r.choice([1, 2, 3, 5, 20]) for _ in range(r.choice([2, 2, 3, 4])))
    dt = r.choice(["float32", "float64", "float16", "bfloat16"])
    kw = {}
    if fn == "trunc_normal_":
        kw = dict(mean=r.uniform(-1, 1), std=r.choice([0.3, 1.0]), a=r.uniform(-3, 0))
        kw["b"] = kw["a"] + r.choice([0.1, 1.0, 4.0])
    elif fn.startswith("kaiming"):
        kw = dict(a=r.choice([0, 0.1]), mode=r.choice(["fan_in", "fan_out"]),
                  nonlinearity=r.choice(["leaky_relu", "relu", "selu", "linear"]))  # fmt: skip
    elif fn == "sparse_":
        kw = dict(sparsity=r.choice([0.1, 0.5]))
    elif fn == "dirac_":
        kw = dict(groups=r.choice([1, 2]))
    return fn, shape, dt, kw, r.random() < 0.3, r.random() < 0.3


def _init_run(lib, case, seed):
    fn, shape, dt, kw, transposed, use_gen = case
    lib.manual_seed(seed)
    kw = dict(kw)
    if use_gen and fn not in ("dirac_", "eye_"):
        kw["generator"] = lib.Generator().manual_seed(seed + 1)
    t = lib.empty(shape, dtype=getattr(lib, dt))
    if transposed:
        t = t.transpose(0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = getattr(lib.nn.init, fn)(t, **kw)
        except Exception as e:  # noqa: BLE001 - compared with torch's
            return type(e).__name__, str(e).replace("minitorch", "torch")
    return out is t, _np(t), _np(lib.rand(3))


@pytest.mark.parametrize("seed", range(150))
def test_init_functions_match_torch_bit_for_bit(seed):
    case = _init_case(random.Random(seed))
    a, b = _init_run(torch, case, seed), _init_run(mt, case, seed)
    assert len(a) == len(b)
    if len(a) == 2:
        assert a == b
        return
    assert a[0] == b[0]
    if case[0] == "orthogonal_":  # LAPACK's QR (MKL in torch, NumPy's here): round-off apart
        np.testing.assert_allclose(a[1], b[1], rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2], b[2])


DROPS = {
    "Dropout": "dropout", "Dropout1d": "dropout1d", "Dropout2d": "dropout2d",
    "Dropout3d": "dropout3d", "AlphaDropout": "alpha_dropout",
    "FeatureAlphaDropout": "feature_alpha_dropout",
}  # fmt: skip


def _drop_run(lib, case, seed):
    name, shape, p, inplace, training, functional = case
    lib.manual_seed(seed)
    x = lib.randn(shape, dtype=lib.float64, requires_grad=True)
    src = x * 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if functional:
                fn = getattr(lib.nn.functional, DROPS[name])
                y = fn(src, p=p, training=training, inplace=inplace)
            else:
                m = getattr(lib.nn, name)(p=p, inplace=inplace)
                m.train(training)
                y = m(src)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e).replace("minitorch", "torch")
    (g,) = lib.autograd.grad(y, x, lib.ones(y.shape, dtype=lib.float64))
    return y is src, _np(y), _np(g), _np(src), _np(lib.rand(2))


@pytest.mark.parametrize("seed", range(120))
def test_dropout_matches_torch_bit_for_bit(seed):
    r = random.Random(seed)
    case = (
        r.choice(list(DROPS)),
        tuple(r.choice([1, 2, 3, 17]) for _ in range(r.randint(1, 5))),
        r.choice([0.0, 1.0, 0.5, 0.2]),
        r.random() < 0.3,
        r.random() < 0.8,
        r.random() < 0.5,
    )
    a, b = _drop_run(torch, case, seed), _drop_run(mt, case, seed)
    assert len(a) == len(b)
    if len(a) == 2:
        assert a == b
        return
    assert a[0] == b[0]
    for u, v in zip(a[1:], b[1:], strict=True):
        np.testing.assert_array_equal(u, v)


def _norm_run(lib, case, seed):
    kind, shape, kw, steps, evalmode = case
    lib.manual_seed(seed)
    try:
        m = getattr(lib.nn, kind)(dtype=lib.float64, **kw)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.randn(p.shape, dtype=lib.float64))
        res = []
        for s in range(steps):
            if evalmode and s == steps - 1:
                m.eval()
            x = lib.randn(shape, dtype=lib.float64, requires_grad=True)
            y = m(x)
            gs = lib.autograd.grad(y, [x, *m.parameters()], lib.randn(y.shape, dtype=lib.float64))
            res += [y, *gs]
        res += list(m.state_dict().values())
        return [_np(t) for t in res]
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("minitorch", "torch")


@pytest.mark.parametrize("seed", range(120))
def test_norm_layers_match_torch(seed):
    r = random.Random(seed)
    kind = r.choice(
        ["BatchNorm1d", "BatchNorm2d", "InstanceNorm1d", "InstanceNorm2d", "GroupNorm",
         "LayerNorm", "RMSNorm", "LocalResponseNorm"]
    )  # fmt: skip
    c, n = r.randint(1, 4), r.choice([1, 2, 3])
    if kind.startswith(("BatchNorm", "InstanceNorm")):
        nsp = 2 if kind.endswith("2d") else r.choice([0, 1]) if kind == "BatchNorm1d" else 1
        shape = [n, c] + [r.randint(1, 3) for _ in range(nsp)]
        if kind.startswith("Instance") and r.random() < 0.3:
            shape = shape[1:]
        kw = dict(num_features=c, affine=r.random() < 0.5, track_running_stats=r.random() < 0.5,
                  momentum=r.choice([0.1, None]))  # fmt: skip
    elif kind == "GroupNorm":
        g = r.randint(1, 2)
        shape = [n, 2 * g, r.randint(1, 3)]
        kw = dict(num_groups=g, num_channels=2 * g, affine=r.random() < 0.7)
    elif kind in ("LayerNorm", "RMSNorm"):
        shape = [r.randint(1, 3) for _ in range(r.randint(1, 3))]
        kw = dict(normalized_shape=shape[-1:], elementwise_affine=r.random() < 0.7)
    else:
        shape = [n, c, r.randint(1, 3)]
        kw = dict(size=r.randint(1, 3))
    case = (kind, tuple(shape), kw, r.randint(1, 3), r.random() < 0.3)
    a, b = _norm_run(torch, case, seed), _norm_run(mt, case, seed)
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert a == b
        return
    assert len(a) == len(b)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-9, atol=1e-11)
