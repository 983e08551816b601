"""Session 47 (helper attrs): grad_fn._saved_* of shape, pointwise, special and pooling nodes
(torch's values, written out here; tests/reference/test_s47_attrs_reference.py compares them
with torch itself), and that keeping the arguments as given changes no result or gradient."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

F = minitorch.nn.functional
U = 1 << 64  # torch reads an int64 back unsigned: -1 shows as U - 1


def _t(*shape, lo=-1.0, hi=1.0, seed=0):
    g = np.random.default_rng(seed)
    return minitorch.tensor(g.uniform(lo, hi, shape), dtype=minitorch.float64, requires_grad=True)


def _saved(out) -> dict:
    fn = out.grad_fn
    return {a[7:]: getattr(fn, a) for a in dir(fn) if a.startswith("_saved_")}


X = _t(4, 5, 6)
M = _t(3, 4, seed=1)
P = _t(3, 4, lo=0.1, hi=0.9, seed=2)
Q = _t(3, 4, lo=1.1, hi=2.0, seed=3)


@pytest.mark.parametrize(
    "call, name, want",
    [
        (lambda: X.unsqueeze(-1), "UnsqueezeBackward0", {"dim": U - 1}),
        (lambda: X.unsqueeze(np.int64(-2)), "UnsqueezeBackward0", {"dim": U - 2}),
        (lambda: X.unsqueeze(1), "UnsqueezeBackward0", {"dim": 1}),
        (lambda: X.transpose(0, -1), "TransposeBackward0", {"dim0": 0, "dim1": U - 1}),
        (lambda: X.mT, "TransposeBackward0", {"dim0": U - 2, "dim1": U - 1}),
        (lambda: minitorch.swapaxes(X, -1, 0), "TransposeBackward0", {"dim0": U - 1, "dim1": 0}),
        (lambda: M.adjoint(), "TransposeBackward0", {"dim0": U - 2, "dim1": U - 1}),
        (lambda: X.transpose(2, 0), "TransposeBackward0", {"dim0": 2, "dim1": 0}),
        (lambda: X.permute(-1, 0, 1), "PermuteBackward0", {"dims": (U - 1, 0, 1)}),
        (lambda: X.permute(2, 0, 1), "PermuteBackward0", {"dims": (2, 0, 1)}),
        (lambda: X.flip(-1, 0), "FlipBackward0", {"dims": (U - 1, 0)}),
        (lambda: X.roll((1, 2), (0, -1)), "RollBackward0", {"dims": (0, U - 1), "shifts": (1, 2)}),
        (lambda: X.roll(-1), "RollBackward0", {"dims": (), "shifts": (U - 1,)}),
        (
            lambda: X.unfold(-1, 2, 2),
            "UnfoldBackward0",
            {"dimension": U - 1, "size": 2, "step": 2, "self_sym_sizes": (4, 5, 6)},
        ),
        (lambda: X.tril(-1), "TrilBackward0", {"diagonal": U - 1}),
        (lambda: M.triu(2), "TriuBackward0", {"diagonal": 2}),
        (
            lambda: X.diagonal(-1, -1, 0),
            "DiagonalBackward0",
            {"dim1": U - 1, "dim2": 0, "offset": U - 1, "self_sym_sizes": (4, 5, 6)},
        ),
        (
            lambda: minitorch.diag(M, 1),
            "DiagonalBackward0_copy",
            {"dim1": 0, "dim2": 1, "offset": 1, "self_sym_sizes": (3, 4)},
        ),
        (
            lambda: X.as_strided((2, 3), (3, 1), 4),
            "AsStridedBackward0",
            {"size": (2, 3), "stride": (3, 1), "storage_offset": 4},
        ),
        (
            lambda: X.as_strided((2, 2), (1, 2)),
            "AsStridedBackward0",
            {"size": (2, 2), "stride": (1, 2), "storage_offset": None},
        ),
        (lambda: M.rot90(), "Rot90Backward0", {"k": 1, "dims": (0, 1)}),
        (lambda: X.rot90(-1, [-1, 0]), "Rot90Backward0", {"k": U - 1, "dims": (U - 1, 0)}),
        (lambda: M.rot90(5), "Rot90Backward0", {"k": 5, "dims": (0, 1)}),
        (lambda: M.trace(), "TraceBackward0", {"self_sym_sizes": (3, 4)}),
        (lambda: minitorch.lerp(M, P, 0.3), "LerpBackward0", {"weight": 0.3}),
        (lambda: minitorch.addcmul(M, P, Q, value=2), "AddcmulBackward0", {"value": 2}),
        (lambda: minitorch.addcdiv(M, P, Q, value=-0.5), "AddcdivBackward0", {"value": -0.5}),
        (lambda: minitorch.polygamma(2, Q), "PolygammaBackward0", {"n": 2}),
        (lambda: P.logit(), "LogitBackward0", {"eps": None}),
        (lambda: P.logit(eps=0.2), "LogitBackward0", {"eps": 0.2}),
        (lambda: minitorch.mvlgamma(Q, 2), "MvlgammaBackward0", {"p": 2}),
        (lambda: minitorch.xlogy(2.5, P), "XlogyBackward1", {"self": 2.5}),
        (lambda: minitorch.xlogy(M, 3), "XlogyBackward2", {"other": 3}),
    ],
)
def test_saved_numbers(call, name, want):
    out = call()
    assert out.grad_fn.name() == name
    got = {k: v for k, v in _saved(out).items() if k in want}
    assert got == want
    assert all(type(got[k]) is type(v) for k, v in want.items())
    assert set(_saved(out)) >= set(want)


@pytest.mark.parametrize(
    "call, saved",
    [
        (lambda: P.log2(), {"self": P}),
        (lambda: P.log1p(), {"self": P}),
        (lambda: P.asin(), {"self": P}),
        (lambda: Q.acosh(), {"self": Q}),
        (lambda: M.erf(), {"self": M}),
        (lambda: Q.lgamma(), {"self": Q}),
        (lambda: M.sinc(), {"self": M}),
        (lambda: minitorch.xlogy(M, P), {"self": M, "other": P}),
        (lambda: minitorch.xlogy(M, 3), {"self": M}),
        (lambda: minitorch.fmod(M, Q), {"self": M, "other": Q}),
        (lambda: minitorch.logaddexp(M, P), {"self": M, "other": P}),
        (lambda: minitorch.igamma(Q, P), {"self": Q, "other": P}),
        (lambda: minitorch.lerp(M, P, Q), {"self": M, "end": P, "weight": Q}),
        (lambda: minitorch.addcmul(M, P, Q), {"tensor1": P, "tensor2": Q}),
        (lambda: minitorch.addcmul(M, P.detach(), Q), {"tensor1": P.detach(), "tensor2": None}),
    ],
)
def test_saved_inputs(call, saved):
    """A saved input is the call's tensor; one not needed for a gradient is None, as torch's."""
    got = _saved(call())
    for key, t in saved.items():
        if t is None:
            assert got[key] is None, key
        elif t.requires_grad:
            assert got[key] is t, key
        else:  # (a tensor the call detached: its values)
            np.testing.assert_array_equal(got[key].numpy(), t.numpy(), err_msg=key)


@pytest.mark.parametrize(
    "op, x",
    [
        ("exp2", M), ("expm1", M), ("tan", M), ("rsqrt", P), ("reciprocal", P),
    ],
)  # fmt: skip
def test_saved_results(op, x):
    out = getattr(x, op)()
    np.testing.assert_array_equal(out.grad_fn._saved_result.detach().numpy(), out.detach().numpy())
    assert "_saved_self" not in dir(out.grad_fn)


def test_inplace_inverse_hyperbolic_nodes_show_nothing():
    """torch's AsinhBackward1 (x.asinh_() on a non-leaf) saves nothing it shows."""
    for op in ("asinh_", "acosh_", "atanh_"):
        x = (P + 1.0 if op == "acosh_" else P * 0.5) * 1
        out = getattr(x, op)()
        assert out.grad_fn.name().endswith("Backward1")
        assert [a for a in dir(out.grad_fn) if a.startswith("_saved_")] == []


def test_avg_pool_arguments():
    img = _t(2, 3, 8, 8)
    out = F.avg_pool2d(img, 3, 2, 1, True, False, 5)
    want = {
        "kernel_size": (3, 3),
        "stride": (2, 2),
        "padding": (1, 1),
        "ceil_mode": True,
        "count_include_pad": False,
        "divisor_override": 5,
    }
    got = _saved(out)
    assert got["self"] is img
    assert {k: got[k] for k in want} == want
    (g,) = minitorch.autograd.grad((out * out).sum(), [img], create_graph=True)
    assert g.grad_fn.name() == "AvgPool2DBackwardBackward0"
    assert _saved(g) == want
    plain = _saved(F.avg_pool2d(img, 2))
    assert plain["stride"] == () and plain["divisor_override"] is None
    assert _saved(F.avg_pool2d(img, 2))["kernel_size"] == (2, 2)  # (a kept argument plan)
    vol = _t(1, 2, 6, 6, 6)
    assert _saved(F.avg_pool3d(vol, 2))["kernel_size"] == (2, 2, 2)


def test_adaptive_avg_and_unpool_saved_tensors():
    img = _t(2, 3, 8, 8)
    out = F.adaptive_avg_pool2d(img, 3)
    assert out.grad_fn.name() == "AdaptiveAvgPool2DBackward0"
    assert out.grad_fn._saved_self is img
    pooled, idx = F.max_pool2d(img, 2, return_indices=True)
    un = F.max_unpool2d(pooled, idx, 2)
    assert un.grad_fn._saved_indices is idx
    x1 = _t(2, 3, 10)
    p1, i1 = F.max_pool1d(x1, 2, return_indices=True)
    node = F.max_unpool1d(p1, i1, 2).grad_fn.next_functions[0][0]
    assert node.name() == "MaxUnpool2DBackward0"
    np.testing.assert_array_equal(node._saved_indices.numpy(), i1.unsqueeze(-1).numpy())


def test_kept_arguments_leave_results_and_gradients_alone():
    """The dims kept as given change nothing else: the same values, strides, and gradients as
    the wrapped dims give."""
    x = _t(3, 4, 5, seed=7)
    pairs = [
        (lambda t: t.unsqueeze(-1), lambda t: t.unsqueeze(3)),
        (lambda t: t.transpose(0, -1), lambda t: t.transpose(0, 2)),
        (lambda t: t.permute(-1, 0, 1), lambda t: t.permute(2, 0, 1)),
        (lambda t: t.flip(-1), lambda t: t.flip(2)),
        (lambda t: t.roll(1, -1), lambda t: t.roll(1, 2)),
        (lambda t: t.unfold(-1, 2, 1), lambda t: t.unfold(2, 2, 1)),
        (lambda t: t.diagonal(0, -1, -2), lambda t: t.diagonal(0, 2, 1)),
        (lambda t: t.rot90(5, [-1, 0]), lambda t: t.rot90(1, [2, 0])),
    ]
    g = np.random.default_rng(8)
    for given, wrapped in pairs:
        a, b = given(x), wrapped(x)
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert a.stride() == b.stride() and a.grad_fn.name() == b.grad_fn.name()
        up = minitorch.tensor(g.standard_normal(a.shape))
        (ga,) = minitorch.autograd.grad(a, [x], up)
        (gb,) = minitorch.autograd.grad(b, [x], up)
        np.testing.assert_array_equal(ga.numpy(), gb.numpy())
