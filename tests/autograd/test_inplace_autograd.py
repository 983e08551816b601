"""In-place ops under autograd: right gradients (vs the out-of-place computation) or torch's error;
version counters; in-place through views; views and grad mode."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _np(t):
    return t.detach().cpu().numpy()


def _grads_of(fn, *values, gout_seed=0):
    """fn's output and the gradients of (output * random upstream).sum() w.r.t. fresh float64
    leaves made from `values`."""
    leaves = [mt.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in values]
    out = fn(*leaves)
    gout = np.random.default_rng(gout_seed).normal(size=tuple(out.shape))
    out.backward(mt.tensor(gout))
    return _np(out), [None if t.grad is None else _np(t.grad) for t in leaves]


X = np.arange(1.0, 13.0).reshape(3, 4) / 4
W = np.linspace(0.5, 2.0, 4)


# Each case: (in-place version, the same math out of place). Both take leaves (x, w).
CASES = {
    "non_leaf_chain": (
        lambda x, w: (lambda y: (y.add_(1), y.mul_(3), y.div_(2), y.sub_(x), y)[-1])(x * 2),
        lambda x, w: (x * 2 + 1) * 3 / 2 - x,
    ),
    "operators": (
        lambda x, w: (lambda y: (y.__iadd__(w), y.__imul__(x), y.__itruediv__(w), y)[-1])(x * 1),
        lambda x, w: (x + w) * x / w,
    ),
    "mul_by_leaf_uses_old_value": (
        lambda x, w: (lambda y: (y.mul_(w), y * y)[-1])(x * 3),
        lambda x, w: (x * 3 * w) ** 2,
    ),
    "unary_inplace": (
        lambda x, w: (lambda y: (y.neg_(), y.abs_(), y.add_(1), y.sqrt_(), y)[-1])(x * 0.5),
        lambda x, w: ((x * 0.5).neg().abs() + 1).sqrt(),
    ),
    "zero_and_fill": (
        lambda x, w: (lambda y: (y[0].zero_(), y[1].fill_(2.0), y * x)[-1])(x * 3),
        lambda x, w: (
            mt.cat(
                [
                    mt.zeros(1, 4, dtype=mt.float64),
                    mt.full((1, 4), 2.0, dtype=mt.float64),
                    x[2:] * 3,
                ]
            )
            * x
        ),
    ),
    "copy_from_leaf": (
        lambda x, w: (lambda y: (y.copy_(w), y * x)[-1])(x * 2),
        lambda x, w: w.expand(3, 4) * x,
    ),
    "narrow_view": (
        lambda x, w: (lambda y: (y.narrow(1, 1, 2).mul_(3), y * y)[-1])(x * 1),
        lambda x, w: mt.cat([x[:, :1], x[:, 1:3] * 3, x[:, 3:]], 1) ** 2,
    ),
    "view_then_slice": (
        lambda x, w: (lambda y: (y.view(12)[:4].add_(w), y.exp())[-1])(x * 1),
        lambda x, w: mt.cat([x[:1] + w, x[1:]]).exp(),
    ),
    "row_mul_leaf": (
        lambda x, w: (lambda y: (y[1].mul_(w), y * x)[-1])(x * 1),
        lambda x, w: mt.stack([x[0], x[1] * w, x[2]]) * x,
    ),
    "transpose_view": (
        lambda x, w: (lambda y: (y.t()[1:].div_(2), y * x)[-1])(x * 1),
        lambda x, w: mt.cat([x[:, :1], x[:, 1:] / 2], 1) * x,
    ),
    "base_modified_then_view_used": (
        lambda x, w: (lambda y, v: (y.mul_(2), v * v)[-1])(*(lambda y: (y, y[0]))(x * 1)),
        lambda x, w: (x[0] * 2) ** 2,
    ),
    "view_of_view": (
        lambda x, w: (lambda y: (y[1:].narrow(1, 0, 2)[0].sub_(w[:2]), y.tanh())[-1])(x * 1),
        lambda x, w: mt.cat([x[:1], mt.cat([x[1:2, :2] - w[:2], x[1:2, 2:]], 1), x[2:]]).tanh(),
    ),
    "setitem_from_leaf": (
        lambda x, w: (lambda y: (y.__setitem__((slice(None), 0), w[:3] * 2), y.exp())[-1])(x * 1),
        lambda x, w: mt.cat([(w[:3] * 2).unsqueeze(1), x[:, 1:]], 1).exp(),
    ),
    "buffer_gains_history": (
        lambda x, w: (lambda b, v: (b.add_(x), v * 2 + x[:2])[-1])(
            *(lambda b: (b, b[0:2]))(mt.zeros(3, 4, dtype=mt.float64))
        ),
        lambda x, w: x[:2] * 2 + x[:2],
    ),
    "buffer_written_through_view": (
        lambda x, w: (lambda b: (b[1].copy_(w), b[0].add_(x[0]), b * 3)[-1])(
            mt.zeros(3, 4, dtype=mt.float64)
        ),
        lambda x, w: mt.stack([x[0], w, mt.zeros(4, dtype=mt.float64)]) * 3,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_inplace_gives_the_out_of_place_gradient(name):
    inplace, reference = CASES[name]
    out, grads = _grads_of(inplace, X, W)
    ref_out, ref_grads = _grads_of(reference, X, W)
    np.testing.assert_allclose(out, ref_out, rtol=1e-12, err_msg=f"{name}: forward")
    for which, g, r in zip("xw", grads, ref_grads, strict=True):
        if r is None:
            assert g is None or not np.any(g), f"{name}: d/d{which} should be absent"
        else:
            assert g is not None, f"{name}: d/d{which} missing"
            np.testing.assert_allclose(g, r, rtol=1e-12, err_msg=f"{name}: d/d{which}")


def test_inplace_on_non_leaf_takes_a_new_grad_fn():
    x = mt.ones(3, requires_grad=True)
    y = x * 2
    y.add_(1)
    assert type(y.grad_fn).__name__ == "AddBackward0" and y._version == 1
    base = x * 1
    base.narrow(0, 1, 1).mul_(2)
    assert type(base.grad_fn).__name__.startswith("CopySlices")


def test_inplace_on_leaf_requiring_grad_is_refused_outside_no_grad():
    x = mt.ones(3, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="^a leaf Variable that requires grad is being used in an in-place operation.$",
    ):
        x.add_(1)
    with pytest.raises(
        RuntimeError,
        match="^a view of a leaf Variable that requires grad is being "
        "used in an in-place operation.$",
    ):
        x.view(3, 1).mul_(2)
    with mt.no_grad():
        x.mul_(5)
        x[0].zero_()
    assert x._version == 2 and x.is_leaf and x.grad_fn is None
    (x * 2).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(_np(x), [0.0, 5.0, 5.0])


def test_view_made_a_leaf_by_requires_grad_is_refused_in_place():
    # x is a view of a base that needs no grad, made a leaf: torch refuses in-place ops on it and
    # on views of it (they would leave a leaf with a grad_fn that never gets a .grad)
    msg = "^a view of a leaf Variable that requires grad is being used in an in-place operation.$"
    x = mt.arange(12.0)[4:]
    x.requires_grad_()
    with pytest.raises(RuntimeError, match=msg):
        x.mul_(2)
    y = mt.arange(12.0).view(3, 4)
    y.requires_grad_()
    with pytest.raises(RuntimeError, match=msg):
        y[0] = 5.0
    assert x.is_leaf and x.grad_fn is None and y.grad_fn is None
    with mt.no_grad():
        x.mul_(2)  # allowed outside grad mode, as for any leaf
    (x * 3).sum().backward()
    np.testing.assert_allclose(_np(x.grad), np.full(8, 3.0))
    np.testing.assert_allclose(_np(x), 2 * np.arange(4.0, 12.0))


def test_version_counter_is_shared_by_views_and_detach_but_not_data():
    t = mt.ones(4)
    v = t.view(2, 2)
    d = t.detach()
    assert (t._version, v._version) == (0, 0)
    t.add_(1)
    assert (t._version, v._version, d._version) == (1, 1, 1)
    v.mul_(2)
    assert t._version == 2
    d.sub_(1)
    assert t._version == 3, "detach() shares the version counter"
    t.data.add_(1)
    assert t._version == 3, ".data changes escape autograd"
    t.zero_()
    t.fill_(2.0)
    t.copy_(mt.ones(4))
    t[0] = 5.0
    assert t._version == 7


def test_saved_input_modified_in_place_is_detected():
    a = mt.ones(3, requires_grad=True)
    b = a * 2
    c = b * b
    b.add_(1)
    with pytest.raises(
        RuntimeError,
        match=r"^one of the variables needed for gradient computation "
        r"has been modified by an inplace operation: "
        r"\[torch.FloatTensor \[3\]\], which is output 0 of "
        r"Add, is at version 1; expected version 0 instead. "
        r"Hint: enable anomaly detection to find the "
        r"operation that failed to compute its gradient, with "
        r"torch.autograd.set_detect_anomaly\(True, "
        r"check_nan=False\).$",
    ):
        c.sum().backward()


def test_saved_output_modified_in_place_is_detected():
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mt.float64, requires_grad=True)
    y = x.exp()
    s = y.sum()
    y.add_(1)
    y.add_(1)
    with pytest.raises(
        RuntimeError,
        match=r"\[torch.DoubleTensor \[2, 2\]\], which is output 0 of "
        r"Exp, is at version 2; expected version 0 instead.",
    ):
        s.backward()


def test_saved_leaf_modified_under_no_grad_is_detected():
    a = mt.ones(3, requires_grad=True)
    b = a * a
    with mt.no_grad():
        a.add_(1)
    with pytest.raises(
        RuntimeError,
        match=r"modified by an inplace operation: \[torch.FloatTensor "
        r"\[3\]\] is at version 1; expected version 0",
    ):
        b.sum().backward()


def test_saved_tensor_modified_through_a_view_is_detected():
    x = mt.ones(3, requires_grad=True)
    y = x * 1
    z = y * y
    y[1].mul_(2)
    with pytest.raises(RuntimeError, match="has been modified by an inplace operation"):
        z.sum().backward()


def test_view_taken_under_no_grad_cannot_be_modified_with_grad_on():
    x = mt.ones(3, requires_grad=True)
    y = x * 1
    with mt.no_grad():
        v = y[0:2]
    with pytest.raises(
        RuntimeError,
        match="^A view was created in no_grad mode and is being "
        "modified inplace with grad mode enabled.",
    ):
        v.mul_(2)
    with mt.no_grad():
        v.mul_(2)  # allowed where it was created
    plain = mt.zeros(3)
    with mt.no_grad():
        pv = plain[0:2]
    pv.add_(1)  # nothing requires grad: nothing to track
    np.testing.assert_allclose(_np(plain), [1.0, 1.0, 0.0])


def test_view_grad_fn_read_under_no_grad_is_regenerated_later():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[0:2]
    y.mul_(2)
    with mt.no_grad():
        assert v.grad_fn is not None
    (v * 2).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [4.0, 4.0, 0.0], err_msg="d/dx of 2 * (2x)[:2]")


def test_custom_in_place_function_on_a_view():
    class DoubleInPlace(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    out = DoubleInPlace.apply(y[1:])
    np.testing.assert_allclose(_np(out), [4.0, 6.0])
    np.testing.assert_allclose(_np(y), [1.0, 4.0, 6.0])
    (y * mt.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [1.0, 4.0, 6.0])


def test_inplace_matches_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        w = lib.tensor(W, requires_grad=True)
        y = x.sigmoid() * 1
        y[1:, 2:].mul_(w[2:])
        y.t()[0].add_(w[:3])
        y += x * w
        y.narrow(0, 0, 1).div_(3)
        out = (y * y).sum()
        out.backward()
        return _np(y), _np(x.grad), _np(w.grad)

    for name, a, b in zip(["y", "x.grad", "w.grad"], run(mt), run(torch), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, err_msg=name)


def test_retain_grad_follows_an_in_place_change():
    # torch moves the retain hook to the new grad_fn: .grad is that of the new value
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    m = x * 1
    m.retain_grad()
    m.mul_(2)
    m.add_(1)
    (m * 5).sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), [5.0, 5.0, 5.0])  # was 10 (the old value's)
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, 10.0, 10.0])

    class Double(mt.autograd.Function):  # a custom in-place op (mark_dirty)
        @staticmethod
        def forward(ctx, t):
            ctx.mark_dirty(t)
            return t.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x.grad = None
    m = x * 1
    m.retain_grad()
    Double.apply(m)
    (m * 5).sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), [5.0, 5.0, 5.0])
    np.testing.assert_array_equal(x.grad.numpy(), [10.0, 10.0, 10.0])


def test_in_place_shape_ops_bump_the_version_and_name_their_nodes():
    w = mt.ones(2, 3, requires_grad=True)
    y = w.exp()
    y.t_()  # exp saved y: backward must see it changed
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    for op, name in (
        (lambda t: t.t_(), "TBackward1"),
        (lambda t: t.transpose_(0, 1), "TransposeBackward1"),
        (lambda t: t.unsqueeze_(0), "UnsqueezeBackward1"),
        (lambda t: t.unsqueeze_(0).squeeze_(0), "SqueezeBackward4"),
        (lambda t: t.as_strided_((3, 2), (1, 3)), "AsStridedBackward1"),
    ):
        t = w * 1
        v = t._version
        op(t)
        assert type(t.grad_fn).__name__ == name and t._version > v
    t = w * 1
    t.t_().sum().backward()  # gradients still flow through
    np.testing.assert_array_equal(w.grad.numpy(), np.ones((2, 3)))


def test_products_keep_an_operand_only_for_the_others_gradient():
    # an actor-critic update between two backwards: the input needs no grad, so the weight is
    # not saved and may change in place (torch does the same; it raised here)
    lin = mt.nn.Linear(2, 1)
    with mt.no_grad():
        lin.weight.fill_(1.0)
        lin.bias.zero_()
    opt = mt.optim.SGD(lin.parameters(), lr=0.1)
    h = lin(mt.tensor([[1.0, 2.0]]))
    (h**2).sum().backward(retain_graph=True)
    opt.step()
    (h**3).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), [[33.0, 66.0]])
    w = mt.ones(2, 2, requires_grad=True)
    x = mt.ones(3, 2)
    y = x @ w
    with mt.no_grad():
        w.mul_(2)  # not saved: fine
    y.sum().backward()
    x = mt.ones(3, 2, requires_grad=True)
    y = x @ w
    with mt.no_grad():
        w.mul_(2)  # saved for x's gradient: torch's error
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
