"""A seeded slice of the session-22 nn.utils differential fuzzer: gradient clipping and the
packing utilities run in torch and minitorch on the same random cases (both libraries' CPU
random streams agree under manual_seed), comparing values, gradients and errors."""

import math
import random

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _run(lib, fn, seed):
    lib.manual_seed(seed)
    try:
        return "ok", fn(lib)
    except Exception as e:  # the error is part of what is compared
        return "err", (type(e).__name__, str(e).split("\n")[0])


def _flat(lib, x):
    if isinstance(x, lib.Tensor):
        return [(str(x.dtype).split(".")[-1], tuple(x.shape), x.detach().double().numpy())]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _flat(lib, item)]
    return [x]


def _compare(fn, seed, tol):
    kt, rt = _run(torch, fn, seed)
    km, rm = _run(minitorch, fn, seed)
    assert kt == km, (rt, rm)
    if kt == "err":
        assert rt == rm
        return
    ft, fm = _flat(torch, rt), _flat(minitorch, rm)
    assert len(ft) == len(fm)
    for a, b in zip(ft, fm, strict=True):
        if isinstance(a, tuple) and len(a) == 3 and isinstance(a[2], np.ndarray):
            assert a[:2] == b[:2]
            np.testing.assert_allclose(b[2], a[2], rtol=tol, atol=tol, equal_nan=True)
        else:
            assert a == b


def _clip_case(seed):
    rng = random.Random(seed)
    n = rng.choice([1, 2, 3])
    dtype = rng.choice(["float64", "float32"])
    norm_type = rng.choice([1, 2, math.inf, -math.inf, 0.5, 3, "inf"])
    max_norm = rng.choice([0, 0.1, 1.0, 100.0])
    foreach = rng.choice([None, False])
    shapes = [tuple(rng.randint(0, 3) for _ in range(rng.randint(0, 2))) for _ in range(n)]

    def fn(lib):
        ps = []
        for shape in shapes:
            p = lib.randn(shape, dtype=getattr(lib, dtype)).requires_grad_()
            p.grad = lib.randn(shape, dtype=getattr(lib, dtype)) * 3
            ps.append(p)
        total = lib.nn.utils.clip_grad_norm_(ps, max_norm, norm_type, foreach=foreach)
        return [total, [p.grad for p in ps]]

    return fn, (1e-5 if dtype == "float32" else 1e-10)


def _rnn_case(seed):
    rng = random.Random(seed)
    batch, steps = rng.randint(1, 4), rng.randint(1, 4)
    lengths = [rng.randint(1, steps) for _ in range(batch)]
    batch_first = rng.random() < 0.5
    enforce_sorted = rng.random() < 0.5
    total_length = rng.choice([None, steps + 1])
    padding_value = rng.choice([0.0, -1.5])

    def fn(lib):
        shape = (batch, steps, 2) if batch_first else (steps, batch, 2)
        x = lib.randn(shape, dtype=lib.float64, requires_grad=True)
        rnn = lib.nn.utils.rnn
        packed = rnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
        out, lens = rnn.pad_packed_sequence(packed, batch_first, padding_value, total_length)
        (out * lib.randn(out.shape, dtype=lib.float64)).sum().backward()
        return [list(packed), out, lens, x.grad, type(out.grad_fn).__name__]

    return fn, 1e-12


@pytest.mark.parametrize("seed", range(60))
def test_clip_grad_norm_matches_torch(seed):
    fn, tol = _clip_case(seed)
    _compare(fn, seed, tol)


@pytest.mark.parametrize("seed", range(60))
def test_pack_pad_roundtrip_matches_torch(seed):
    fn, tol = _rnn_case(seed)
    _compare(fn, seed, tol)
