"""ctc_loss against PyTorch on seeded random cases: losses and gradients (NaN where torch's
are) over reductions, blank positions (also inside the targets), zero_infinity, padded and
concatenated targets, length tuples and int32/int64 tensors, empty targets and inputs,
infeasible samples, -inf log-probabilities, float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402


def _case(rng):
    T, N, C, S = (int(rng.integers(1, hi)) for hi in (14, 5, 6, 7))
    S -= 1
    blank = int(rng.integers(0, C))
    tg = rng.integers(0, C, (N, S))
    if rng.random() < 0.6:  # torch's doc excludes the blank from targets; both are compared
        tg = np.where(tg == blank, (blank + 1) % C, tg)
    tl = rng.integers(0, S + 1, N)
    il = rng.integers(0, T + 1, N)
    if rng.random() < 0.3:
        tg = np.concatenate([tg[n, : tl[n]] for n in range(N)]).astype(np.int64)
    raw = rng.random() < 0.4  # log-probabilities given directly, not through log_softmax
    x = rng.standard_normal((T, N, C)) * rng.choice([1.0, 4.0])
    if raw:
        x = np.log(rng.dirichlet(np.ones(C), size=(T, N)))
        if rng.random() < 0.3:
            x[rng.integers(0, T), rng.integers(0, N), rng.integers(0, C)] = -np.inf
    return dict(
        x=x, tg=tg, il=il, tl=tl, blank=blank, raw=raw,
        reduction=str(rng.choice(["none", "mean", "sum"])),
        zero_infinity=bool(rng.random() < 0.4),
        dtype="float64" if rng.random() < 0.6 else "float32",
        lengths=str(rng.choice(["tuple", "int64", "int32"])),
    )  # fmt: skip


def _run(lib, c):
    x = lib.tensor(c["x"], dtype=getattr(lib, c["dtype"]), requires_grad=True)
    lp = x if c["raw"] else x.log_softmax(-1)
    if c["lengths"] == "tuple":
        il, tl = tuple(int(v) for v in c["il"]), tuple(int(v) for v in c["tl"])
    else:
        dt = getattr(lib, c["lengths"])
        il, tl = lib.tensor(c["il"], dtype=dt), lib.tensor(c["tl"], dtype=dt)
    loss = lib.nn.functional.ctc_loss(
        lp, lib.tensor(c["tg"]), il, tl, blank=c["blank"], reduction=c["reduction"],
        zero_infinity=c["zero_infinity"],
    )  # fmt: skip
    up = np.linspace(0.5, 1.5, loss.numel()).reshape(tuple(loss.shape))
    loss.backward(lib.tensor(up, dtype=loss.dtype))
    return loss.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("seed", range(6))
def test_ctc_loss_matches_torch(seed):
    rng = np.random.default_rng(seed)
    for i in range(40):
        c = _case(rng)
        want = _run(torch, c)
        got = _run(mt, c)
        tol = 1e-9 if c["dtype"] == "float64" else 2e-4
        for g, w, what in zip(got, want, ("loss", "grad"), strict=True):
            msg = f"seed {seed} case {i} {what}: {c}"
            assert g.shape == w.shape, msg
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=msg)
