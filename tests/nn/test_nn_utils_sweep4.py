"""nn.utils / nn.init / module-hook differences found by the fourth torch-vs-minitorch sweep,
checked without torch: trunc_normal_ with a > b, weight_norm's dim range, torch.norm_except_dim
and torch._weight_norm, torch.utils.swap_tensors, and what an always_call forward hook sees after
an earlier hook raised."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn import _torch_namespace as ns


def _np(t):
    return t.detach().cpu().numpy()


def _norm_except(a, p, dim):
    """NumPy reference: the p-norm over every axis but `dim` (all when None), keeping dims."""
    axes = tuple(i for i in range(a.ndim) if dim is None or i != dim % a.ndim)
    if p == 0:
        return (a != 0).sum(axis=axes, keepdims=True).astype(a.dtype)
    return (np.abs(a) ** p).sum(axis=axes, keepdims=True) ** (1.0 / p)


# --- nn.init.trunc_normal_ ---


def test_trunc_normal_refuses_a_above_b_as_uniform_does():
    t = mt.zeros(4)
    with pytest.raises(RuntimeError, match=r"uniform_ expects .*from=2 > to=-2"):
        nn.init.trunc_normal_(t, mean=0.0, std=1.0, a=2.0, b=-2.0)
    np.testing.assert_array_equal(_np(t), np.zeros(4, np.float32), err_msg="left untouched")
    with pytest.raises(RuntimeError, match=r"from=0\.5 > to=0\.25"):
        nn.init.trunc_normal_(mt.zeros(3), mean=1.0, std=3.0, a=0.5, b=0.25)
    # an empty-width range is still allowed, and an integer tensor is refused first
    t = nn.init.trunc_normal_(mt.zeros(3), a=1.0, b=1.0)
    np.testing.assert_array_equal(_np(t), np.ones(3, np.float32))
    with pytest.raises(NotImplementedError, match="check_uniform_bounds"):
        nn.init.trunc_normal_(mt.zeros(3, dtype=mt.int64), a=2.0, b=-2.0)


# --- weight_norm's dim ---


@pytest.mark.filterwarnings("ignore:`torch.nn.utils.weight_norm` is deprecated")
@pytest.mark.parametrize("apply", [nn.utils.parametrizations.weight_norm, nn.utils.weight_norm])
def test_weight_norm_dim_out_of_range_raises_index_error(apply):
    for dim in (2, -3):
        with pytest.raises(
            IndexError,
            match=rf"Dimension out of range \(expected to be in range of \[-2, 1\], but got {dim}",
        ):
            apply(nn.Linear(3, 2), dim=dim)


@pytest.mark.filterwarnings("ignore:`torch.nn.utils.weight_norm` is deprecated")
@pytest.mark.parametrize("apply", [nn.utils.parametrizations.weight_norm, nn.utils.weight_norm])
def test_weight_norm_in_range_dims_keep_their_meaning(apply):
    w0 = np.arange(6.0, dtype=np.float32).reshape(2, 3) - 2
    expected_g = {None: (), -1: (), 0: (2, 1), 1: (1, 3), -2: (2, 1)}
    for dim, g_shape in expected_g.items():
        m = nn.Linear(3, 2)
        with mt.no_grad():
            m.weight.copy_(mt.tensor(w0))
        apply(m, dim=dim)
        if apply is nn.utils.weight_norm:
            g = m.weight_g
            m(mt.ones(1, 3))
        else:
            g = m.parametrizations.weight.original0
        assert tuple(g.shape) == g_shape, (dim, tuple(g.shape))
        np.testing.assert_allclose(_np(m.weight), w0, rtol=1e-6, err_msg=f"dim={dim}")


# --- torch.norm_except_dim, torch._weight_norm ---


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
@pytest.mark.parametrize("p", [0, 1, 2, 3])
def test_norm_except_dim_matches_numpy(dim, p):
    a = np.random.default_rng(0).standard_normal((2, 3, 4))
    out = ns.norm_except_dim(mt.tensor(a), p, dim)
    expected = _norm_except(a, p, None) if dim == -1 else _norm_except(a, p, dim)
    if dim == -1:  # over every dim: a 0-d result
        expected = expected.reshape(())
    assert tuple(out.shape) == expected.shape
    np.testing.assert_allclose(_np(out), expected, rtol=1e-12, err_msg=f"p={p} dim={dim}")


def test_norm_except_dim_defaults_node_names_and_errors():
    v = mt.arange(24.0).reshape(2, 3, 4).requires_grad_()
    assert tuple(ns.norm_except_dim(v).shape) == (2, 1, 1)  # pow 2, dim 0
    np.testing.assert_allclose(
        _np(ns.norm_except_dim(v, pow=1, dim=1)).ravel(), [60.0, 92.0, 124.0]
    )
    names = {0: "ViewBackward0", 1: "TransposeBackward0", -1: "NormBackward0"}
    for dim, name in names.items():
        assert ns.norm_except_dim(v, 2, dim).grad_fn.name() == name, dim
    for dim in (3, -4):
        with pytest.raises(IndexError, match=rf"range of \[-3, 2\], but got {dim}\)"):
            ns.norm_except_dim(v, 2, dim)
    with pytest.raises(TypeError, match="'pow' .position 2. must be int, not float"):
        ns.norm_except_dim(v, float("inf"), 1)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        ns.norm_except_dim(mt.tensor(3.0), 2, 0)
    np.testing.assert_allclose(_np(ns.norm_except_dim(mt.tensor(-3.0), 2, -1)), 3.0)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2])
def test_weight_norm_function_values_and_node_names(dim):
    rng = np.random.default_rng(1)
    v = rng.standard_normal((2, 3, 4))
    g_shape = () if dim == -1 else tuple(s if i == dim % 3 else 1 for i, s in enumerate(v.shape))
    g = rng.standard_normal(g_shape)
    out = ns._weight_norm(mt.tensor(v, requires_grad=True), mt.tensor(g, requires_grad=True), dim)
    norm = np.sqrt((v**2).sum()) if dim == -1 else _norm_except(v, 2, dim)
    np.testing.assert_allclose(_np(out), v * (g / norm), rtol=1e-12, err_msg=f"dim={dim}")
    fused = dim in (0, 2)  # torch's one node for dim 0 and the last dim, a mul otherwise
    name = "WeightNormInterfaceBackward0" if fused else "MulBackward0"
    assert out.grad_fn.name() == name
    assert ns._weight_norm(mt.tensor(v), mt.tensor(g), dim).grad_fn is None


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_weight_norm_function_gradients(dim):
    rng = np.random.default_rng(2)
    v = mt.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    g_shape = () if dim == -1 else tuple(s if i == dim else 1 for i, s in enumerate(v.shape))
    g = mt.tensor(rng.standard_normal(g_shape), requires_grad=True)
    assert gradcheck(lambda v, g: ns._weight_norm(v, g, dim), (v, g))
    assert gradgradcheck(lambda v, g: ns._weight_norm(v, g, dim), (v, g))
    assert gradcheck(lambda v: ns.norm_except_dim(v, 3, dim), (v,))


def test_weight_norm_function_dtype_errors():
    with pytest.raises(
        NotImplementedError, match="\"weight_norm_kernel\" not implemented for 'Long'"
    ):
        ns._weight_norm(mt.ones(2, 3, dtype=mt.int64), mt.ones(2, 1, dtype=mt.int64), 0)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        ns._weight_norm(mt.tensor(3.0), mt.tensor(2.0), 0)
    # a dim torch composes (neither 0 nor the last) promotes, as a mul does
    out = ns._weight_norm(mt.ones(2, 3, 4), mt.ones(1, 3, 1, dtype=mt.float64), 1)
    assert out.dtype is mt.float64


def test_hand_written_weight_norm_module_trains():
    # the pattern of vocoders' copies of torch's old WeightNorm.compute_weight
    v = mt.tensor(np.arange(6.0).reshape(2, 3) - 2, requires_grad=True)
    g = ns.norm_except_dim(v, 2, 0).detach().requires_grad_()
    w = ns._weight_norm(v, g, 0)
    np.testing.assert_allclose(_np(w), _np(v), rtol=1e-12)
    (w * mt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=mt.float64)).sum().backward()
    assert v.grad is not None and g.grad is not None
    # d/dg of sum(c * g * v / |v|) = sum(c * v) / |v| per row
    c = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    v0 = _np(v)
    expected = (c * v0).sum(1, keepdims=True) / np.sqrt((v0**2).sum(1, keepdims=True))
    np.testing.assert_allclose(_np(g.grad), expected, rtol=1e-12)


# --- torch.utils.swap_tensors ---


def test_swap_tensors_swaps_contents_class_and_attributes():
    p = nn.Parameter(mt.ones(2))
    q = mt.zeros(2, 3, dtype=mt.float64)
    q.foo = 1
    q.add_(5)
    ids = id(p), id(q)
    assert mt.utils.swap_tensors(p, q) is None
    assert (id(p), id(q)) == ids
    assert type(p) is mt.Tensor and type(q) is nn.Parameter
    assert p.dtype is mt.float64 and tuple(p.shape) == (2, 3) and not p.requires_grad
    np.testing.assert_array_equal(_np(p), np.full((2, 3), 5.0))
    np.testing.assert_array_equal(_np(q), np.ones(2, np.float32))
    assert q.requires_grad and q.is_leaf
    assert p.foo == 1 and not hasattr(q, "foo")
    assert p._version == 1 and q._version == 0


def test_swap_tensors_moves_grads_and_hooks():
    a = mt.ones(2, requires_grad=True)
    b = mt.zeros(2, requires_grad=True)
    a.sum().backward()
    seen = []
    a.register_hook(lambda grad: seen.append(_np(grad).tolist()))
    mt.utils.swap_tensors(a, b)
    assert a.grad is None
    np.testing.assert_array_equal(_np(b.grad), [1.0, 1.0])
    (b * 3).sum().backward()  # b now holds a's hook and gradient
    assert seen == [[3.0, 3.0]]
    np.testing.assert_array_equal(_np(b.grad), [4.0, 4.0])
    (a * 2).sum().backward()
    np.testing.assert_array_equal(_np(a.grad), [2.0, 2.0])
    assert seen == [[3.0, 3.0]]


def test_swap_tensors_in_a_module_and_poisoned_graphs():
    m = nn.Linear(2, 2)
    w = m.weight
    y = m(mt.ones(1, 2)).sum()  # a graph recorded before the swap
    mt.utils.swap_tensors(w, nn.Parameter(mt.zeros(2, 2)))
    assert m.weight is w
    np.testing.assert_array_equal(_np(m.weight), np.zeros((2, 2), np.float32))
    with pytest.raises(RuntimeError, match="AccumulateGrad node that was poisoned by swap_tensors"):
        y.backward()
    m.weight.grad = None
    m(mt.ones(1, 2)).sum().backward()  # a new graph accumulates into the swapped parameter
    np.testing.assert_array_equal(_np(m.weight.grad), np.ones((2, 2), np.float32))


def test_swap_tensors_refuses_weakly_referenced_tensors():
    a, b = mt.ones(2), mt.zeros(3)
    ref = weakref.ref(b)
    with pytest.raises(RuntimeError, match="Cannot swap t2 because it has weakref associated"):
        mt.utils.swap_tensors(a, b)
    assert ref() is b
    np.testing.assert_array_equal(_np(a), [1.0, 1.0])
    with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref associated"):
        mt.utils.swap_tensors(b, a)


# --- always_call forward hooks ---


def test_always_call_hook_sees_the_output_as_earlier_hooks_changed_it():
    m = nn.Identity()
    seen = []
    m.register_forward_hook(lambda mod, args, out: out * 10)

    def bad(mod, args, out):
        raise ValueError("hook failed")

    m.register_forward_hook(bad)
    m.register_forward_hook(lambda mod, args, out: seen.append(_np(out).tolist()), always_call=True)
    with pytest.raises(ValueError, match="hook failed"):
        m(mt.tensor([2.0]))
    assert seen == [[20.0]]


def test_always_call_hook_sees_none_when_forward_raises():
    class Bad(nn.Module):
        def forward(self, x):
            raise ValueError("forward failed")

    m = Bad()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="forward failed"):
        m(mt.ones(1))
    assert seen == [None]
