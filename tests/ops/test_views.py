"""Views: shared memory and version counters, `_base`, and autograd through in-place on views."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

# (name, view function, whether writing through the view is allowed)
VIEWS = [
    ("view", lambda x: x.view(4, 6), True),
    ("view_infer", lambda x: x.view(-1), True),
    ("reshape_viewable", lambda x: x.reshape(2, 12), True),
    ("flatten", lambda x: x.flatten(1), True),
    ("unflatten", lambda x: x.unflatten(2, (2, 2)), True),
    ("squeeze", lambda x: x.unsqueeze(0).squeeze(), True),
    ("squeeze_dim", lambda x: x[None].squeeze(0), True),
    ("unsqueeze", lambda x: x.unsqueeze(1), True),
    ("permute", lambda x: x.permute(2, 0, 1), True),
    ("transpose", lambda x: x.transpose(0, 2), True),
    ("t", lambda x: x[0].t(), True),
    ("T", lambda x: x[0].T, True),
    ("mT", lambda x: x.mT, True),
    ("movedim", lambda x: x.movedim(0, -1), True),
    ("expand", lambda x: x[:, :1].expand(5, 2, 3, 4), False),
    ("narrow", lambda x: x.narrow(2, 1, 2), True),
    ("split", lambda x: x.split(2, 2)[1], True),
    ("split_sizes", lambda x: x.split([1, 2], 1)[1], True),
    ("chunk", lambda x: x.chunk(2, 1)[0], True),
    ("unbind", lambda x: x.unbind(1)[2], True),
    ("tensor_split", lambda x: x.tensor_split(3, 2)[1], True),
    ("diagonal", lambda x: x.diagonal(1, 1, 2), True),
    ("unfold", lambda x: x.unfold(2, 2, 2), True),
    ("as_strided", lambda x: x.as_strided((3, 2), (4, 1), 5), True),
    ("view_of_view", lambda x: x.transpose(0, 1).narrow(0, 1, 2).unsqueeze(0), True),
    ("meshgrid", lambda x: mt.meshgrid(x[0, 0], x[1, 1], indexing="ij")[0], False),
]

COPIES = [
    ("reshape_copy", lambda x: x.transpose(0, 1).reshape(-1)),
    ("cat", lambda x: mt.cat([x, x])),
    ("stack", lambda x: mt.stack([x, x])),
    ("flip", lambda x: x.flip(0)),
    ("roll", lambda x: x.roll(1)),
    ("rot90", lambda x: x.rot90()),
    ("repeat", lambda x: x.repeat(1, 2, 1)),
    ("diag", lambda x: x[0].diag()),
    ("tril", lambda x: x.tril()),
]


def _base_tensor(device):
    return mt.arange(24.0, device=device).reshape(2, 3, 4).clone()


def _host(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("name,fn,writable", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_shares_memory_version_and_base(name, fn, writable, device):
    x = _base_tensor(device)
    v = fn(x)
    assert v._base is x, f"{name}: _base should be the root tensor"
    assert v._version == x._version
    x.add_(100)
    np.testing.assert_array_equal(_host(v), _host(fn(x)), err_msg=f"{name}: base write unseen")
    assert v._version == x._version == 1
    if writable:
        before = _host(x).copy()
        v.mul_(-1)
        assert x._version == 2 and v._version == 2
        assert (_host(x) != before).any(), f"{name}: write through the view did not reach base"
        np.testing.assert_array_equal(_host(v), _host(fn(x)), err_msg=name)


@pytest.mark.parametrize("name,fn", COPIES, ids=[c[0] for c in COPIES])
def test_copies_do_not_share(name, fn, device):
    x = _base_tensor(device)
    out = fn(x)
    assert out._base is None, f"{name}: a copy must not be a view"
    snapshot = _host(out).copy()
    x.add_(1)
    np.testing.assert_array_equal(_host(out), snapshot, err_msg=f"{name} changed with its input")
    assert out._version == 0


def test_flip_result_is_contiguous_and_owns_memory():
    x = mt.arange(6.0).reshape(2, 3)
    for out in (x.flip(0), x.flip((0, 1)), x.fliplr(), x.rot90(2)):
        assert out.is_contiguous()
        assert all(s > 0 for s in out.stride())
        assert out.numpy().base is None or not np.shares_memory(out.numpy(), x.numpy())


def test_view_of_nonviewable_raises_and_reshape_copies():
    x = mt.arange(6.0).reshape(2, 3).t()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.view(-1)
    y = x.reshape(-1)
    assert y._base is None
    assert y.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_view_of_sliced_transposed_is_viewable():
    # torch's stride rule: merging dims is allowed only where they are contiguous with each other
    x = mt.arange(24.0).reshape(2, 3, 4).narrow(1, 0, 2)  # (2, 2, 4): dims 1-2 contiguous
    assert x.view(2, 8)._base is not None
    assert x.view(2, 2, 2, 2)._base is not None
    assert x.unsqueeze(1).view(2, 1, 8)._base is not None
    assert x.view(2, 8).tolist()[1] == list(range(12, 20))
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.view(4, 4)


# --- autograd through in-place ops on views ---


def _grads(device, body):
    """d/dx sum(body(x) * w) for a fixed random x, w."""
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((3, 4))
    x = mt.tensor(xa, device=device, requires_grad=True)
    out = body(x)
    w = mt.tensor(rng.standard_normal(tuple(out.shape)), device=device)
    (out * w).sum().backward()
    return _host(out), _host(x.grad)


def _same(device, inplace, outofplace):
    o1, g1 = _grads(device, inplace)
    o2, g2 = _grads(device, outofplace)
    np.testing.assert_allclose(o1, o2, rtol=1e-12, atol=1e-12, err_msg="values")
    np.testing.assert_allclose(g1, g2, rtol=1e-12, atol=1e-12, err_msg="gradients")


def _inplace(view, op):
    def body(x):
        y = x * 1
        op(view(y))
        return y

    return body


def test_mul_through_transpose(device):
    _same(device, _inplace(lambda y: y.transpose(0, 1), lambda v: v.mul_(2)), lambda x: x * 2)


def test_add_through_view(device):
    _same(device, _inplace(lambda y: y.view(-1), lambda v: v.add_(1)), lambda x: x + 1)


def test_zero_through_narrow(device):
    def ref(x):
        mask = mt.tensor([[0.0] * 4] + [[1.0] * 4] * 2, device=x.device, dtype=x.dtype)
        return x * mask

    _same(device, _inplace(lambda y: y.narrow(0, 0, 1), lambda v: v.zero_()), ref)


def test_mul_through_unsafe_split_output(device):
    # torch refuses this through split's outputs (NOTE [ Multi-output views ]), not through
    # unsafe_split's; here both are views replayed as narrow
    def ref(x):
        a, b = x.split([1, 3], 1)
        return mt.cat([a, b * b], 1)

    _same(
        device,
        _inplace(  # (torch's unsafe_split refuses a list of sizes: its _with_sizes form)
            lambda y: y.unsafe_split_with_sizes([1, 3], 1)[1], lambda v: v.mul_(v.detach() * 0 + v)
        ),
        ref,
    )


def test_mul_through_unbind_output_is_refused(device):
    y = mt.randn(3, 4, device=device, requires_grad=True) * 1
    row = y.unbind(0)[1]
    with pytest.raises(RuntimeError, match="Output 1 of Unbind is a view and is being modified"):
        row.mul_(3)


def test_fill_through_diagonal(device):
    def ref(x):
        keep = mt.tensor(1.0 - np.eye(3, 4), device=x.device)
        return x * keep + mt.tensor(np.eye(3, 4) * 5, device=x.device)

    _same(device, _inplace(lambda y: y.diagonal(), lambda v: v.fill_(5.0)), ref)


def test_through_view_of_view(device):
    _same(
        device,
        _inplace(lambda y: y.narrow(0, 1, 2).t().unsqueeze(0), lambda v: v.mul_(4)),
        lambda x: mt.cat([x[:1], x[1:] * 4], 0),
    )


def test_base_modified_after_view_was_taken(device):
    # the view's grad_fn is regenerated from the base's new history
    def body(x):
        y = x * 1
        v = y.t()
        y.mul_(3)
        return v

    _same(device, body, lambda x: (x * 3).t())


def test_base_modified_after_unsafe_split(device):
    def body(x):
        y = x * 1
        a, b = y.unsafe_split(2, 1)
        y.add_(x)  # doubles y in place
        return b

    _same(device, body, lambda x: x[:, 2:] * 2)


def test_base_modified_after_unbind_refuses_the_outputs(device):
    y = mt.randn(3, 4, device=device, requires_grad=True) * 1
    rows = y.unbind(0)
    y.mul_(2)
    with pytest.raises(RuntimeError, match="Output 2 of Unbind is a view and its base"):
        rows[2] * 1


def test_saved_view_modified_in_place_raises(device):
    x = mt.randn(3, 4, device=device, requires_grad=True)
    y = x * 1
    v = y.t()
    z = v * v  # saves v
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_inplace_on_view_of_leaf_requiring_grad_raises(device):
    x = mt.randn(3, 4, device=device, requires_grad=True)
    msg = "a view of a leaf Variable that requires grad is being used in an in-place operation."
    for view in (
        lambda t: t.t(),
        lambda t: t.view(-1),
        lambda t: t.narrow(0, 0, 1),
        lambda t: t.diagonal(),
    ):
        with pytest.raises(RuntimeError, match=msg):
            view(x).mul_(2)
    for view in (lambda t: t.split(2)[0], lambda t: t.unbind(0)[0]):  # torch checks this first
        with pytest.raises(RuntimeError, match="returns multiple views"):
            view(x).mul_(2)
    with mt.no_grad():
        x.t().mul_(2)  # allowed without grad recording
    assert x._version == 1


def test_inplace_view_of_leaf_not_requiring_grad(device):
    x = mt.zeros(2, 3, device=device)
    x.narrow(1, 1, 1).fill_(1.0)
    x.t()[0].add_(2.0)
    assert x.tolist() == [[2.0, 1.0, 0.0], [2.0, 1.0, 0.0]]


def test_views_of_requires_grad_share_grad_flow(device):
    x = mt.randn(2, 3, device=device, requires_grad=True)
    parts = x.split(1, 0)
    (parts[0].sum() * 2 + parts[1].sum() * 3).backward()
    np.testing.assert_array_equal(_host(x.grad), [[2.0] * 3, [3.0] * 3])


def test_unused_outputs_of_multi_output_views_get_zero_grads(device):
    x = mt.randn(4, 3, device=device, requires_grad=True)
    x.chunk(2, 0)[1].sum().backward()
    np.testing.assert_array_equal(_host(x.grad), [[0.0] * 3] * 2 + [[1.0] * 3] * 2)
    x.grad = None
    x.unbind(1)[1].sum().backward()
    np.testing.assert_array_equal(_host(x.grad), [[0.0, 1.0, 0.0]] * 4)


def test_double_backward_through_views(device):
    x = mt.randn(3, 4, device=device, dtype=mt.float64, requires_grad=True)
    y = (x.t().reshape(-1).narrow(0, 2, 6) ** 3).sum()
    (g,) = mt.autograd.grad(y, x, create_graph=True)
    (gg,) = mt.autograd.grad(g.sum(), x)
    xa = _host(x)
    mask = np.zeros(12)
    mask[2:8] = 1
    want = (6 * xa.T.reshape(-1) * mask).reshape(4, 3).T
    np.testing.assert_allclose(_host(gg), want, rtol=1e-12)


# --- in-place shape methods ---


def test_inplace_shape_methods(device):
    x = mt.zeros(1, 3, 1, device=device)
    assert x.squeeze_() is x and x.shape == (3,)
    assert x.unsqueeze_(0) is x and x.shape == (1, 3)
    assert x.t_() is x and x.shape == (3, 1)
    assert x.transpose_(0, 1) is x and x.shape == (1, 3)
    y = x * 1
    y.requires_grad_(False)


def test_inplace_shape_methods_keep_history(device):
    x = mt.randn(2, 3, device=device, requires_grad=True)
    y = x * 2
    y.t_()
    assert y.shape == (3, 2)
    w = mt.randn(3, 2, device=device)
    (y * w).sum().backward()
    np.testing.assert_allclose(_host(x.grad), _host(w).T * 2, rtol=1e-6)
