"""Shape, join and split ops against torch: a seeded slice of the session-22 differential fuzzer
(random shapes with size-0/1 dims, transposed / stepped / expanded inputs). Compared: values,
shape, dtype, exception type, whether the result aliases the input (after a write to it), and
float64 first and second derivatives."""

import random
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _shape(r, lo=0, hi=4):
    return tuple(
        r.choice([0, 1, 2, 3, 4]) if r.random() < 0.15 else r.randint(1, 4)
        for _ in range(r.randint(lo, hi))
    )


def _layout(r, shape):
    """(base shape, expression giving x of `shape` from base): plain, permuted, stepped or
    expanded."""
    nd = len(shape)
    k = r.choice(["plain", "perm", "step", "expand"] if nd else ["plain"])
    if k == "perm" and nd >= 2:
        p = list(range(nd))
        r.shuffle(p)
        inv = [p.index(i) for i in range(nd)]
        return tuple(shape[p[i]] for i in range(nd)), f"base.permute({inv})"
    if k == "step":
        d = r.randrange(nd)
        bs = list(shape)
        bs[d] = 2 * shape[d]
        return tuple(bs), "base[" + ", ".join([":"] * d + ["::2"]) + "]"
    if k == "expand":
        bs = tuple(1 if r.random() < 0.5 else s for s in shape)
        return bs, f"base.expand({shape})"
    return shape, "base"


def _dim(r, nd):
    return r.randint(-nd, nd - 1) if nd else r.choice([0, -1])


def _case(r):
    s = _shape(r)
    nd = len(s)
    d = _dim(r, nd)
    n = s[d] if nd else 1
    ops = [
        lambda: f"x.reshape({(-1,) + s[1:] if s and s[0] else s})",
        lambda: f"x.flatten({_dim(r, nd)}, {_dim(r, nd)})",
        lambda: "x.squeeze()" if r.random() < 0.5 else f"x.squeeze({d})",
        lambda: f"x.unsqueeze({r.randint(-nd - 1, nd)})",
        lambda: f"x.movedim({d}, {_dim(r, nd)})",
        lambda: f"x.transpose({d}, {_dim(r, nd)})",
        lambda: f"x.expand({(2,) + s})",
        lambda: f"x.repeat({(2,) + (1,) * nd})",
        lambda: f"x.repeat_interleave({r.randint(0, 2)}, dim={d if nd else None})",
        lambda: f"T.cat([x, x * 2], dim={d})" if nd else "T.stack([x, x])",
        lambda: f"T.stack([x, x + 1], dim={r.randint(-nd - 1, nd)})",
        lambda: f"x.split({r.randint(1, 3)}, {d})" if nd else "x.flatten()",
        lambda: f"x.chunk({r.randint(1, 4)}, {d})" if nd else "x.flatten()",
        lambda: (
            f"T.tensor_split(x, {sorted(r.randint(0, 4) for _ in range(2))}, dim={d})"
            if nd
            else "x.flatten()"
        ),
        lambda: f"x.unbind({d})" if nd else "x.flatten()",
        lambda: f"x.narrow({d}, 0, {r.randint(0, n)})" if nd else "x.flatten()",
        lambda: f"x.flip({[d]})",
        lambda: f"T.roll(x, {r.randint(-3, 3)}, {d})" if nd else "x.roll(1)",
        lambda: f"T.rot90(x, {r.randint(-2, 2)}, [0, -1])" if nd >= 2 else "x.flatten()",
        lambda: f"x.diagonal({r.randint(-2, 2)}, 0, -1)" if nd >= 2 else "x.flatten()",
        lambda: f"x.tril({r.randint(-2, 2)})" if nd >= 2 else "x.flatten()",
        lambda: f"T.diag_embed(x, {r.randint(-2, 2)})",
        lambda: f"x.unfold({d}, {r.randint(0, n)}, {r.randint(1, 2)})",
        lambda: f"T.atleast_{r.randint(1, 3)}d([x])",
        lambda: "x.as_strided((2, 2), (1, 0))" if 0 not in s else "x.flatten()",
    ]
    return s, r.choice(ops)()


def _run(T, bshape, lay, expr, seed, grad):
    arr = np.random.default_rng(seed).standard_normal(bshape)
    base = T.tensor(arr, dtype=T.float64, requires_grad=grad)
    ns = {"T": T, "base": base}
    ns["x"] = eval(lay, ns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = eval(expr, ns)
        except Exception as e:  # noqa: BLE001
            return ("error", type(e).__name__)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if not grad:
        before = [(tuple(o.shape), str(o.dtype), o.tolist()) for o in outs]
        with T.no_grad():
            base.add_(1)
        return before, [o.tolist() for o in outs]
    loss = 0
    for i, o in enumerate(outs):
        w = T.tensor(np.random.default_rng(seed + i).standard_normal(tuple(o.shape)))
        loss = loss + (w * o * o).sum()
    (g,) = T.autograd.grad(loss, base, create_graph=True)
    v = T.tensor(np.random.default_rng(seed + 99).standard_normal(bshape))
    (gg,) = T.autograd.grad((g * v).sum(), base, allow_unused=True)
    return g.detach().numpy(), None if gg is None else gg.numpy()


@pytest.mark.parametrize("block", range(4))
def test_shape_ops_match_torch(block):
    for seed in range(block * 150, block * 150 + 150):
        r = random.Random(seed)
        shape, expr = _case(r)
        bshape, lay = _layout(r, shape)
        where = f"seed {seed}: x = {lay} (base {bshape}); {expr}"
        want = _run(torch, bshape, lay, expr, seed, False)
        got = _run(minitorch, bshape, lay, expr, seed, False)
        if want[0] == "error":
            assert got == want, where
            continue
        assert got[0] == want[0], where  # shape, dtype, values
        assert got[1] == want[1], where  # the values after a write to the input (aliasing)
        if not any(0 in s for s, _, _ in want[0]):
            gw = _run(torch, bshape, lay, expr, seed, True)
            gm = _run(minitorch, bshape, lay, expr, seed, True)
            np.testing.assert_allclose(gm[0], gw[0], rtol=1e-10, atol=1e-12, err_msg=where)
            assert (gm[1] is None) == (gw[1] is None), where
            if gw[1] is not None:
                np.testing.assert_allclose(gm[1], gw[1], rtol=1e-10, atol=1e-12, err_msg=where)
