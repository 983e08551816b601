"""grad_fn introspection against torch: for nn.functional, linalg and matmul-family call forms,
the graph walked from the result (node names, next_functions, _saved_<name> attributes: names,
values, tensor shapes and dtypes) equals torch's, and the saved tensors' values too."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore:.*upsample_nearest.*is deprecated")


def desc(v):
    if isinstance(v, (torch.Tensor, mt.Tensor)):
        return ("T", tuple(v.shape), str(v.dtype).split(".")[-1])
    if isinstance(v, (tuple, list)):
        return tuple(desc(x) for x in v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else v
    return v


def walk(y):
    """Each node reached from y.grad_fn, depth first: (name, saved attributes, edges' names)."""
    out, seen, stack = [], set(), [y.grad_fn]
    values = []
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        saved = {k: getattr(n, k) for k in dir(n) if k.startswith("_saved_")}
        values.append(saved)
        nxt = tuple(None if f is None else f.name() for f, _ in n.next_functions)
        out.append((n.name(), {k: desc(v) for k, v in saved.items()}, nxt))
        stack.extend(f for f, _ in reversed(n.next_functions))
    return out, values


def mk(lib, shape, seed, rg=True, lo=None):
    a = np.random.default_rng(seed).standard_normal(shape)
    if lo is not None:
        a = np.abs(a) + lo
    return lib.tensor(a, dtype=lib.float64, requires_grad=rg)


F = lambda lib: lib.nn.functional  # noqa: E731

CASES = {
    "interp_nearest": lambda lib: F(lib).interpolate(mk(lib, (1, 2, 3, 3), 1), scale_factor=2),
    "interp_nearest_size": lambda lib: F(lib).interpolate(mk(lib, (1, 2, 3, 3), 1), size=(5, 4)),
    "interp_nearest_1d": lambda lib: F(lib).interpolate(mk(lib, (1, 2, 3), 1), scale_factor=2),
    "interp_nearest_3d": lambda lib: F(lib).interpolate(mk(lib, (1, 1, 2, 2, 2), 1), size=3),
    "interp_nearest_exact": lambda lib: F(lib).interpolate(
        mk(lib, (1, 2, 3, 3), 1), scale_factor=1.5, mode="nearest-exact"
    ),
    "interp_bilinear": lambda lib: F(lib).interpolate(
        mk(lib, (1, 2, 3, 3), 1), scale_factor=2, mode="bilinear"
    ),
    "interp_bilinear_ac": lambda lib: F(lib).interpolate(
        mk(lib, (1, 2, 3, 3), 1), size=(4, 5), mode="bilinear", align_corners=True
    ),
    "interp_bilinear_rsf": lambda lib: F(lib).interpolate(
        mk(lib, (1, 2, 3, 3), 1), scale_factor=1.7, mode="bilinear", recompute_scale_factor=True
    ),
    "interp_bilinear_aa": lambda lib: F(lib).interpolate(
        mk(lib, (1, 2, 6, 6), 1), size=(3, 3), mode="bilinear", antialias=True
    ),
    "interp_bicubic_aa_sf": lambda lib: F(lib).interpolate(
        mk(lib, (1, 2, 6, 6), 1), scale_factor=0.5, mode="bicubic", antialias=True
    ),
    "interp_bicubic": lambda lib: F(lib).interpolate(
        mk(lib, (1, 2, 3, 3), 1), scale_factor=2, mode="bicubic"
    ),
    "interp_linear": lambda lib: F(lib).interpolate(
        mk(lib, (1, 2, 3), 1), scale_factor=2, mode="linear"
    ),
    "interp_trilinear": lambda lib: F(lib).interpolate(
        mk(lib, (1, 1, 2, 2, 2), 1), scale_factor=(2, 1.5, 2), mode="trilinear"
    ),
    "interp_float32": lambda lib: F(lib).interpolate(
        mk(lib, (1, 2, 3, 3), 1).float(), scale_factor=2, mode="bilinear"
    ),
    "upsample_nearest": lambda lib: F(lib).upsample_nearest(mk(lib, (1, 2, 3, 3), 1), 2),
    "glu": lambda lib: F(lib).glu(mk(lib, (2, 4), 1)),
    "glu0": lambda lib: F(lib).glu(mk(lib, (2, 4), 1), 0),
    "unfold": lambda lib: F(lib).unfold(mk(lib, (1, 2, 4, 4), 1), 2),
    "unfold_args": lambda lib: F(lib).unfold(
        mk(lib, (1, 2, 5, 5), 1), (2, 3), dilation=(1, 2), padding=1, stride=2
    ),
    "unfold_3d": lambda lib: F(lib).unfold(mk(lib, (2, 5, 4), 1), 2),
    "fold": lambda lib: F(lib).fold(mk(lib, (1, 8, 9), 1), (4, 4), 2),
    "fold_2d": lambda lib: F(lib).fold(mk(lib, (8, 9), 1), (4, 4), 2),
    "fold_unfold": lambda lib: F(lib).fold(F(lib).unfold(mk(lib, (1, 2, 4, 4), 1), 2), (4, 4), 2),
    "pixel_shuffle": lambda lib: F(lib).pixel_shuffle(mk(lib, (1, 4, 2, 2), 1), 2),
    "pixel_shuffle_t": lambda lib: F(lib).pixel_shuffle(mk(lib, (1, 4, 2, 2), 1), lib.tensor(2)),
    "pixel_unshuffle": lambda lib: F(lib).pixel_unshuffle(mk(lib, (1, 1, 4, 4), 1), 2),
    "baddbmm": lambda lib: lib.baddbmm(mk(lib, (2, 2, 4), 1), mk(lib, (2, 2, 3), 2),
                                       mk(lib, (2, 3, 4), 3)),
    "baddbmm_ab": lambda lib: lib.baddbmm(mk(lib, (2, 2, 4), 1), mk(lib, (2, 2, 3), 2),
                                          mk(lib, (2, 3, 4), 3), beta=0.5, alpha=2),
    "baddbmm_b1only": lambda lib: lib.baddbmm(mk(lib, (2, 2, 4), 1, rg=False),
                                              mk(lib, (2, 2, 3), 2),
                                              mk(lib, (2, 3, 4), 3, rg=False)),
    "baddbmm_bcast": lambda lib: lib.baddbmm(mk(lib, (4,), 1), mk(lib, (2, 2, 3), 2),
                                             mk(lib, (2, 3, 4), 3)),
    "addbmm": lambda lib: lib.addbmm(mk(lib, (2, 4), 1), mk(lib, (2, 2, 3), 2),
                                     mk(lib, (2, 3, 4), 3, rg=False)),
    "addmv": lambda lib: lib.addmv(mk(lib, (2,), 1), mk(lib, (2, 3), 2), mk(lib, (3,), 3),
                                   alpha=2.5),
    "addr": lambda lib: lib.addr(mk(lib, (2, 3), 1), mk(lib, (2,), 2, rg=False),
                                 mk(lib, (3,), 3), beta=0),
    "matmul_1d2d": lambda lib: lib.matmul(mk(lib, (3,), 1), mk(lib, (3, 4), 2)),
    "linear_1d": lambda lib: F(lib).linear(mk(lib, (3,), 1), mk(lib, (4, 3), 2)),
    "kron": lambda lib: lib.kron(mk(lib, (2, 2), 1), mk(lib, (2, 1), 2)),
    "kron_1d": lambda lib: lib.kron(mk(lib, (2,), 1), mk(lib, (3,), 2)),
    "kron_mixed": lambda lib: lib.kron(mk(lib, (2, 2), 1), mk(lib, (3,), 2, rg=False)),
    "cdist": lambda lib: lib.cdist(mk(lib, (2, 3), 1), mk(lib, (4, 3), 2)),
    "cdist_p1": lambda lib: lib.cdist(mk(lib, (2, 3), 1), mk(lib, (4, 3), 2), p=1),
    "cdist_pinf": lambda lib: lib.cdist(mk(lib, (2, 3), 1), mk(lib, (4, 3), 2), p=float("inf")),
    "cdist_p3": lambda lib: lib.cdist(mk(lib, (2, 2, 3), 1), mk(lib, (2, 4, 3), 2), p=3),
    "cdist_mm": lambda lib: lib.cdist(mk(lib, (30, 3), 1), mk(lib, (30, 3), 2)),
    "cdist_x1only": lambda lib: lib.cdist(mk(lib, (2, 3), 1), mk(lib, (4, 3), 2, rg=False)),
    "dist": lambda lib: lib.dist(mk(lib, (2, 3), 1), mk(lib, (3,), 2)),
    "dist_p3": lambda lib: lib.dist(mk(lib, (2, 3), 1), mk(lib, (3,), 2), 3),
    "dist_p1.5": lambda lib: lib.dist(mk(lib, (2, 3), 1), mk(lib, (3,), 2), 1.5),
    "dist_pinf": lambda lib: lib.dist(mk(lib, (2, 3), 1), mk(lib, (3,), 2), float("inf")),
    "dist_p0": lambda lib: lib.dist(mk(lib, (2, 3), 1), mk(lib, (3,), 2), 0),
    "pdist": lambda lib: F(lib).pdist(mk(lib, (4, 3), 1)),
    "pdist_p1": lambda lib: F(lib).pdist(mk(lib, (4, 3), 1), 1),
    "cosine_similarity": lambda lib: F(lib).cosine_similarity(mk(lib, (4, 3), 1),
                                                              mk(lib, (4, 3), 2)),
    "cosine_similarity_bc": lambda lib: F(lib).cosine_similarity(
        mk(lib, (4, 3), 1), mk(lib, (1, 3), 2), dim=-1
    ),
    "det": lambda lib: lib.linalg.det(mk(lib, (3, 3), 1)),
    "det_batch": lambda lib: lib.linalg.det(mk(lib, (2, 3, 3), 1)),
    "torch.det": lambda lib: lib.det(mk(lib, (3, 3), 1)),
    "slogdet": lambda lib: lib.linalg.slogdet(mk(lib, (2, 3, 3), 1))[1],
    "solve": lambda lib: lib.linalg.solve(mk(lib, (3, 3), 1), mk(lib, (3,), 2)),
    "solve_2d": lambda lib: lib.linalg.solve(mk(lib, (3, 3), 1), mk(lib, (3, 2), 2)),
    "solve_batch1d": lambda lib: lib.linalg.solve(mk(lib, (2, 3, 3), 1), mk(lib, (2, 3), 2)),
    "solve_Aonly": lambda lib: lib.linalg.solve(mk(lib, (3, 3), 1), mk(lib, (3,), 2, rg=False)),
    "solve_Bonly": lambda lib: lib.linalg.solve(mk(lib, (3, 3), 1, rg=False), mk(lib, (3,), 2)),
    "solve_right": lambda lib: lib.linalg.solve(mk(lib, (3, 3), 1), mk(lib, (2, 3), 2),
                                                left=False),
    "solve_ex": lambda lib: lib.linalg.solve_ex(mk(lib, (3, 3), 1), mk(lib, (3,), 2))[0],
    "solve_triangular": lambda lib: lib.linalg.solve_triangular(
        mk(lib, (3, 3), 1), mk(lib, (3, 2), 2), upper=True
    ),
    "solve_triangular_right": lambda lib: lib.linalg.solve_triangular(
        mk(lib, (3, 3), 1), mk(lib, (2, 3), 2), upper=False, left=False, unitriangular=True
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_graph_matches_torch(name):
    want, want_values = walk(CASES[name](torch))
    got, got_values = walk(CASES[name](mt))
    assert got == want
    for w, g in zip(want_values, got_values, strict=True):
        for k, v in w.items():
            if isinstance(v, torch.Tensor):  # the saved values too (the LU of A, the result)
                np.testing.assert_allclose(g[k].detach().numpy(), v.detach().numpy(), rtol=1e-12)


GRADS = {
    "kron": (lambda lib, a, b: lib.kron(a, b), [(3, 4), (2, 5)]),
    "kron_mixed": (lambda lib, a, b: lib.kron(a, b), [(2, 2), (3,)]),
    "cosine_similarity": (lambda lib, a, b: F(lib).cosine_similarity(a, b), [(4, 3), (4, 3)]),
    "solve": (lambda lib, a, b: lib.linalg.solve(a, b), [(3, 3), (3,)]),
    "solve_right": (lambda lib, a, b: lib.linalg.solve(a, b, left=False), [(3, 3), (2, 3)]),
    "dist": (lambda lib, a, b: lib.dist(a, b, 3), [(2, 3), (3,)]),
    "pdist": (lambda lib, a: F(lib).pdist(a), [(4, 3)]),
    "unfold_3d": (lambda lib, a: F(lib).unfold(a, 2), [(2, 5, 4)]),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_gradients_match_torch(name):
    f, shapes = GRADS[name]

    def grads(lib):
        xs = [mk(lib, s, i) for i, s in enumerate(shapes)]
        y = f(lib, *xs)
        g = lib.tensor(np.cos(np.arange(y.numel())).reshape(y.shape), dtype=lib.float64)
        return [t.detach().numpy() for t in lib.autograd.grad(y, xs, g)]

    for got, want in zip(grads(mt), grads(torch), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
