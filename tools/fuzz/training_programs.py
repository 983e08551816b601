"""Differential fuzzer: tutorial-style training programs.

About 40 small programs in the style of well-known PyTorch examples (VAE, DCGAN, word LM with
tied weights, seq2seq with attention, char-RNN sampling, ResNet with OneCycle/cosine, ViT, GNN,
REINFORCE, WGAN-GP, resume from a state dict, STN, DQN, style transfer with LBFGS, per-sample
gradients, packed sequence classifier, SN-GAN, distillation/SimCLR, translation Transformer, PPO,
GAT, SWA/EMA, U-Net super-resolution, checkpoint_sequential, Gumbel VAE, word2vec, RealNVP,
pruned weight-normed TCN, cyclic LR siamese, orthogonal RNN, MC dropout, bfloat16 autocast,
max_norm embeddings, an optimizer zoo, ...) run with the same seed in both libraries in float64
and float32; every recorded loss, parameter, optimizer state, lr and sampled value is compared
in order and the first divergence is reported. Not random: --cases limits the programs (0: all),
taken from index --seed on; --only picks programs by name. The programs themselves are the
ones tests/reference/test_s22_programs_reference.py runs (loaded from there: one copy); this
script compares every program in both dtypes and reports the first divergence instead of
asserting.
"""

import importlib.util
import traceback
from pathlib import Path

import _harness as H
import numpy as np
from _harness import minitorch, torch

_REFERENCE = Path(__file__).resolve().parents[2] / "tests/reference/test_s22_programs_reference.py"


def _programs():
    """The programs module of the reference tests (needs pytest importable)."""
    spec = importlib.util.spec_from_file_location("_programs_reference", _REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


P = _programs()


def run(prog, lib, dt):
    r = P.Rec()
    try:
        prog(lib, getattr(lib, dt), r)
    except Exception as e:
        r.items.append(("EXC", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
    return r.items


def compare(prog, dt):
    a = run(prog, torch, dt)
    b = run(prog, minitorch, dt)
    tol = 1e-10 if dt == "float64" else 2e-4
    for i, ((na, va), (nb, vb)) in enumerate(zip(a, b, strict=False)):
        if na != nb:
            return (
                f"name mismatch at {i}: {na!r} vs {nb!r}"
                + (f"\n{vb}" if nb == "EXC" else "")
                + (f"\n{va}" if na == "EXC" else "")
            )
        if na == "EXC":
            return f"both raised: {va[:200]} | {vb[:200]}"
        if va.shape != vb.shape:
            return f"{na}: shape {va.shape} vs {vb.shape}"
        if va.dtype.kind in "biu":
            if not np.array_equal(va, vb):
                return f"{na}: int differ {va.ravel()[:8]} vs {vb.ravel()[:8]}"
            continue
        err = np.max(np.abs(va - vb) / (np.abs(va) + 1e-6)) if va.size else 0
        if not np.allclose(va, vb, rtol=tol, atol=tol * 1e-2, equal_nan=True):
            values = f"\n torch {va.ravel()[:6]}\n mt    {vb.ravel()[:6]}"
            return f"{na} (item {i}): rel err {err:.3g}{values}"
    if len(a) != len(b):
        extra = (a if len(a) > len(b) else b)[min(len(a), len(b))]
        return f"length {len(a)} vs {len(b)}; next: {extra[0]} {str(extra[1])[:1500]}"
    return f"EQUAL ({len(a)} items)"


def main():
    def extra(p):
        p.add_argument("--only", help="comma-separated program names (vae, dcgan, ...)")
        p.add_argument("--dtypes", default="float64,float32", help="default %(default)s")

    args = H.cli("training_programs", default_cases=0, extra=extra)
    rep = args.report
    names = list(P.PROGRAMS)
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    if args.cases:
        k = args.seed % max(len(names), 1)
        names = (names[k:] + names[:k])[: args.cases]
    cmp = H.limited(compare, args.timeout * 3, lambda e: f"timeout: {e}")
    for n in names:
        for dt in args.dtypes.split(","):
            rep.case()
            prog = getattr(P, "p_" + n)
            if n in P.DEFAULT_DTYPE:
                prog = P._with_default_dtype(prog)
            r = cmp(prog, dt)
            if not r.startswith("EQUAL"):
                rep.add((n, dt, r.split(":")[0].split("\n")[0][:60]), r[:1200])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
