"""Session 43 (redspeed): var/std over everything, float32 cumsum and topk against torch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_full_var_std_match_torch(dtype):
    rng = np.random.default_rng(0)
    for a in (
        rng.standard_normal((64, 48)),
        1e4 + 1e-2 * rng.standard_normal((50, 40)),
        rng.standard_normal((40, 30)).T,
        np.full((9, 7), 0.1),  # (a few ulps above torch's 0, as before session 43)
    ):
        a = a.astype(dtype)
        for correction in (0, 1):
            for op in ("var", "std"):
                got = getattr(minitorch, op)(minitorch.from_numpy(a), correction=correction)
                want = getattr(torch, op)(torch.from_numpy(a), correction=correction)
                assert got.dtype is getattr(minitorch, dtype)
                np.testing.assert_allclose(
                    got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7, err_msg=f"{op} {correction}"
                )


def test_full_var_backward_matches_torch():
    a = np.random.default_rng(1).standard_normal((20, 30)).astype("float32")
    x = minitorch.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    x.std().backward()
    t.std().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_float32_cumsum_matches_torch():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((30, 200)).astype("float32")
    a[:2, :3] = -0.0
    a[4, 5] = np.nan
    a[5, 6] = np.inf
    for dim in (0, 1, -1):
        got = minitorch.tensor(a).cumsum(dim).numpy()
        want = torch.tensor(a).cumsum(dim).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"dim {dim}")
        assert list(np.signbit(got[:2, 0])) == list(np.signbit(want[:2, 0]))
        assert got.strides == want.strides
        x = minitorch.tensor(a, requires_grad=True)
        t = torch.tensor(a, requires_grad=True)
        g = rng.standard_normal(a.shape).astype("float32")
        x.cumsum(dim).backward(minitorch.tensor(g))
        t.cumsum(dim).backward(torch.tensor(g))
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-5)
        assert x.grad.numpy().strides == t.grad.numpy().strides


@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_torch(largest):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 100)).astype("float32")  # no ties: torch's indices too
    a[7, 10:14] = np.nan
    for dim in (1, 0):
        got_v, got_i = minitorch.topk(minitorch.tensor(a), 5, dim=dim, largest=largest)
        want_v, want_i = torch.topk(torch.tensor(a), 5, dim=dim, largest=largest)
        np.testing.assert_array_equal(got_v.numpy(), want_v.numpy())
        np.testing.assert_array_equal(got_i.numpy(), want_i.numpy())
        assert got_i.stride() == tuple(want_i.stride())
    ties = rng.integers(0, 6, (64, 100)).astype("float32")
    got_v, _ = minitorch.topk(minitorch.tensor(ties), 7, largest=largest)
    want_v, _ = torch.topk(torch.tensor(ties), 7, largest=largest)
    np.testing.assert_array_equal(got_v.numpy(), want_v.numpy())


@pytest.mark.parametrize("duplicates", [False, True])
def test_accumulating_puts_match_torch(duplicates):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((64, 48)).astype("float32")
    s = rng.standard_normal((32, 48)).astype("float32")
    rows = rng.permutation(64)[:32]
    if duplicates:
        rows[3] = rows[7]
    for lib in (minitorch, torch):
        x, src, idx = lib.tensor(a), lib.tensor(s), lib.tensor(rows)
        leaf = lib.tensor(a, requires_grad=True)
        leaf[idx].backward(src)
        got = (x.index_add(0, idx, src), x.index_put((idx,), src, accumulate=True), leaf.grad)
        if lib is minitorch:
            mine = [t.numpy() for t in got]
        else:
            theirs = [t.numpy() for t in got]
    for k, (m, t) in enumerate(zip(mine, theirs, strict=True)):
        np.testing.assert_allclose(m, t, rtol=1e-6, atol=1e-6, err_msg=f"put {k}")
        assert m.strides == t.strides


@pytest.mark.parametrize("kind", ["max", "min"])
def test_max_min_dim_backward_matches_torch(kind):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((3, 40, 50)).astype("float32")  # no ties
    for dim in (0, 1, 2):
        for keepdim in (False, True):
            grads = []
            for lib in (minitorch, torch):
                x = lib.tensor(a, requires_grad=True)
                values, _ = getattr(x, kind)(dim, keepdim=keepdim)
                g = np.random.default_rng(dim).standard_normal(tuple(values.shape))
                values.backward(lib.tensor(g.astype("float32")))
                grads.append(x.grad.numpy())
            np.testing.assert_array_equal(grads[0], grads[1], err_msg=f"{dim} {keepdim}")
            assert grads[0].strides == grads[1].strides


@pytest.mark.parametrize("kind", ["amax", "amin"])
def test_amax_amin_backward_matches_torch(kind):
    rng = np.random.default_rng(8)
    a = rng.integers(0, 4, (6, 30)).astype("float32")  # ties share the gradient
    a[5, 3] = np.nan
    for dim in (0, 1, (0, 1)):
        grads = []
        for lib in (minitorch, torch):
            x = lib.tensor(a, requires_grad=True)
            out = getattr(x, kind)(dim=dim)
            g = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype("float32")
            out.backward(lib.tensor(g))
            grads.append(x.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=0, err_msg=f"{dim}")
        assert grads[0].strides == grads[1].strides
