"""API details torch code relies on: typing generics of utils.data / DataParallel /
Independent, torch's device types, assert_close(check_stride=True), and torch's grad_fn names
for var_mean, std_mean, quantile, deg2rad, clamp_min_, cholesky_solve, channel_shuffle and
max_unpool."""

from __future__ import annotations

import collections.abc
import typing

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

D = mt.utils.data


def _name(t) -> str:
    return type(t.grad_fn).__name__


def _edges(t) -> list:
    return [None if n is None else type(n).__name__ for n, _ in t.grad_fn.next_functions]


def _f64(*shape, seed=0):
    g = np.random.default_rng(seed)
    return mt.tensor(g.standard_normal(shape), dtype=mt.float64, requires_grad=True)


# --- typing generics ---


@pytest.mark.parametrize(
    "cls",
    [
        D.DataLoader,
        D.Dataset,
        D.IterableDataset,
        D.StackDataset,
        D.ChainDataset,
        D.ConcatDataset,
        D.Subset,
        D.Sampler,
        D.DistributedSampler,
        mt.nn.DataParallel,
        mt.distributions.Independent,
    ],
)
def test_classes_generic_in_torch_are_subscriptable(cls):
    alias = cls[tuple[mt.Tensor, mt.Tensor]]
    assert alias.__origin__ is cls
    assert alias.__args__ == (tuple[mt.Tensor, mt.Tensor],)


@pytest.mark.parametrize(
    "cls", [D.TensorDataset, D.SequentialSampler, D.RandomSampler, D.BatchSampler]
)
def test_classes_with_fixed_parameters_are_not_generic(cls):
    with pytest.raises(TypeError, match="is not a generic class"):
        cls[int]


def test_iterable_dataset_mro_puts_iterable_before_generic():
    mro = D.IterableDataset.__mro__
    assert mro.index(collections.abc.Iterable) < mro.index(typing.Generic)


def test_subscripted_classes_still_construct():
    loader = D.DataLoader[int](D.TensorDataset(mt.arange(4.0)), batch_size=2)
    assert [b[0].tolist() for b in loader] == [[0.0, 1.0], [2.0, 3.0]]
    model = mt.nn.DataParallel[mt.nn.Linear](mt.nn.Linear(2, 3))
    assert list(model.state_dict()) == ["module.weight", "module.bias"]
    assert tuple(model(mt.ones(1, 2)).shape) == (1, 3)


# --- devices ---


@pytest.mark.parametrize(
    "spec, text, type_, index",
    [
        ("mps", "device(type='mps')", "mps", None),
        ("meta", "device(type='meta')", "meta", None),
        ("xpu:0", "device(type='xpu', index=0)", "xpu", 0),
        ("hip:1", "device(type='hip', index=1)", "hip", 1),
    ],
)
def test_torch_device_types_make_device_objects(spec, text, type_, index):
    d = mt.device(spec)
    assert (repr(d), d.type, d.index, str(d)) == (text, type_, index, spec)
    assert d is mt.device(type_, index)
    assert d != mt.device("cpu")


@pytest.mark.parametrize("spec", ["mps", "xpu:0"])
def test_tensors_cannot_live_on_devices_without_a_backend(spec):
    msg = f"not linked with support for {spec.split(':')[0]} devices"
    with pytest.raises(RuntimeError, match=msg):
        mt.ones(2, device=spec)
    with pytest.raises(RuntimeError, match=msg):
        mt.ones(2).to(spec)


def test_unknown_device_type_lists_torchs_types_only():
    with pytest.raises(RuntimeError) as info:
        mt.device("CPU")
    assert str(info.value) == (
        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
        "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of "
        "device string: CPU"
    )


# --- assert_close(check_stride=True) ---


def test_assert_close_checks_strides_when_asked():
    a, b = mt.ones(2, 3).t(), mt.ones(3, 2)
    mt.testing.assert_close(a, b)  # not checked by default
    msg = r"The values for attribute 'stride\(\)' do not match: \(1, 3\) != \(2, 1\)\."
    with pytest.raises(AssertionError, match=msg):
        mt.testing.assert_close(a, b, check_stride=True)
    # before the dtype, as torch; and inside containers with the item's path
    with pytest.raises(AssertionError, match=msg):
        mt.testing.assert_close(a, b.double(), check_stride=True)
    with pytest.raises(AssertionError, match=r"(?s)stride.*item \[1\]"):
        mt.testing.assert_close([b, a], [b, b], check_stride=True)
    mt.testing.assert_close(a, a.clone(), check_stride=True)  # clone keeps the strides


# --- grad_fn names ---


@pytest.mark.parametrize(
    "fn, name", [(mt.var_mean, "VarMeanBackward0"), (mt.std_mean, "StdMeanBackward0")]
)
def test_var_mean_and_std_mean_are_one_node_with_two_outputs(fn, name):
    x = mt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]], requires_grad=True)
    first, mean = fn(x, 1)
    assert _name(first) == name and first.grad_fn is mean.grad_fn
    assert _edges(first) == ["AccumulateGrad"]
    np.testing.assert_allclose(mean.detach().numpy(), [2.0, 16 / 3], rtol=1e-6)
    xd = _f64(3, 4)
    assert gradcheck(lambda a: fn(a, 1), (xd,))
    assert gradgradcheck(lambda a: fn(a, 0, keepdim=True), (xd,))


def test_quantile_node_and_zero_dim_q():
    x = mt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    for out in (
        x.quantile(0.5),
        x.quantile(0.5, 1, keepdim=True),
        x.nanquantile(mt.tensor([0.2, 0.5]), 1),
        x.quantile(0.3, interpolation="lower"),
    ):
        assert _name(out) == "SqueezeBackward4"
    # a 0-d tensor q drops the q dim, as a number does
    out = x.detach().quantile(mt.tensor(0.3), 1)
    assert tuple(out.shape) == (2,)
    np.testing.assert_allclose(out.numpy(), [1.6, 4.6], rtol=1e-6)
    assert gradcheck(
        lambda a: a.quantile(mt.tensor([0.25, 0.6], dtype=mt.float64), 1), (_f64(2, 5),)
    )


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda v: v.deg2rad(), "Deg2RadBackward0"),
        (lambda v: mt.rad2deg(v), "Rad2DegBackward0"),
        (lambda v: (v * 1).deg2rad_(), "Deg2RadBackward0"),
        (lambda v: (v * 1).clamp_min_(2.0), "ClampMinBackward0"),
        (lambda v: (v * 1).clamp_max_(2.0), "ClampMaxBackward0"),
        (lambda v: mt.clamp_min_(v * 1, 2.0), "ClampMinBackward0"),
    ],
)
def test_pointwise_node_names(call, name):
    v = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = call(v)
    assert _name(out) == name
    assert len(out.grad_fn.next_functions) == 1  # the number is no edge, as in torch


def test_clamp_min_inplace_with_a_tensor_bound():
    v = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = mt.tensor([2.0, 2.0, 2.0], requires_grad=True)
    out = (v * 1).clamp_min_(t)
    assert _name(out) == "ClampMinBackward1"
    assert _edges(out) == ["MulBackward0", "AccumulateGrad"]
    assert out.tolist() == [2.0, 2.0, 3.0]
    out.sum().backward()
    assert v.grad.tolist() == [0.0, 1.0, 1.0] and t.grad.tolist() == [1.0, 0.0, 0.0]
    assert _name((v * 1).clamp_max_(t)) == "ClampMaxBackward1"


def test_deg2rad_gradients():
    assert gradcheck(mt.deg2rad, (_f64(4),)) and gradgradcheck(mt.rad2deg, (_f64(4),))


def _chol(seed=1):
    a = np.random.default_rng(seed).standard_normal((3, 3))
    lower = np.linalg.cholesky(a @ a.T + 3 * np.eye(3))
    return mt.tensor(lower, dtype=mt.float64, requires_grad=True)


def test_cholesky_solve_is_one_node_on_b_and_l():
    L, B = _chol(), _f64(3, 2)
    x = mt.cholesky_solve(B, L)
    assert _name(x) == "CholeskySolveBackward0"
    assert _edges(x) == ["AccumulateGrad", "AccumulateGrad"]
    assert _edges(mt.cholesky_solve(mt.eye(3, dtype=mt.float64), L)) == [None, "AccumulateGrad"]
    ld = L.detach().numpy()
    expect = np.linalg.solve(ld @ ld.T, B.detach().numpy())
    np.testing.assert_allclose(x.detach().numpy(), expect, rtol=1e-10, err_msg="cholesky_solve")
    assert _name(mt.cholesky_inverse(L)) == "CholeskyInverseBackward0"
    # torch differentiates as if the whole factor entered: check through its triangle
    f = lambda b, m: mt.cholesky_solve(b, m.tril())  # noqa: E731
    assert gradcheck(f, (B, L)) and gradgradcheck(f, (B, L))
    y = L * 1
    out = mt.cholesky_solve(B, y)
    y.add_(1)  # torch's node saves the factor
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_channel_shuffle_node_and_copy():
    x = mt.arange(8.0).reshape(1, 4, 2).requires_grad_()
    out = F.channel_shuffle(x, 2)
    assert _name(out) == "ChannelShuffleBackward0" and _edges(out) == ["AccumulateGrad"]
    assert out.tolist() == [[[0.0, 1.0], [4.0, 5.0], [2.0, 3.0], [6.0, 7.0]]]
    same = F.channel_shuffle(x.detach(), 1)  # a new tensor even when nothing moves, as torch
    same.add_(1)
    assert x[0, 0, 0].item() == 0.0
    xd = _f64(2, 6, 3)
    assert gradcheck(lambda a: F.channel_shuffle(a, 3), (xd,))
    assert gradgradcheck(lambda a: F.channel_shuffle(a, 1), (xd,))


def _chain(t) -> list:
    names, fn = [], t.grad_fn
    while fn is not None and type(fn).__name__ != "AccumulateGrad":
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0]
    return names


@pytest.mark.parametrize(
    "n, chain",
    [
        (1, ["SqueezeBackward1", "MaxUnpool2DBackward0", "UnsqueezeBackward0"]),
        (2, ["MaxUnpool2DBackward0"]),
        (3, ["MaxUnpool3DBackward0"]),
    ],
)
def test_max_unpool_nodes(n, chain):
    values = mt.tensor(np.arange(1.0, 2 * 2**n + 1).reshape((1, 2) + (2,) * n)).requires_grad_()
    indices = mt.tensor(
        np.arange(2 * 2**n).reshape((1, 2) + (2,) * n) % (2**n) * 2**n, dtype=mt.int64
    )
    out = getattr(F, f"max_unpool{n}d")(values, indices, 2)
    assert _chain(out) == chain
    assert tuple(out.shape) == (1, 2) + (4,) * n
    flat = out.detach().numpy().reshape(2, -1)
    expect = np.zeros((2, 4**n))
    for c in range(2):
        expect[c, indices.numpy().reshape(2, -1)[c]] = values.detach().numpy().reshape(2, -1)[c]
    np.testing.assert_array_equal(flat, expect)
    vd = values.detach().double().requires_grad_()
    f = lambda v: getattr(F, f"max_unpool{n}d")(v, indices, 2)  # noqa: E731
    assert gradcheck(f, (vd,)) and gradgradcheck(f, (vd,))


def test_model_code_helpers_torchvision_and_timm_use():
    mt._assert(True, "unused")
    with pytest.raises(AssertionError, match="^Input height"):
        mt._assert(mt.tensor(False), "Input height (3) doesn't match model (4).")
    from minitorch import fx

    assert fx.wrap("roi_align") == "roi_align"  # called at import by torchvision-style ops
    assert not isinstance(mt.ones(1), fx.Proxy)
    with pytest.raises(NotImplementedError, match="no symbolic tracing"):
        fx.symbolic_trace(mt.nn.Linear(1, 1))
    from minitorch.nn.modules.activation import MultiheadAttention

    assert MultiheadAttention is mt.nn.MultiheadAttention


def test_names_copied_model_code_imports():
    from minitorch.nn.common_types import _size_2_t
    from minitorch.utils import _pytree

    assert _size_2_t is not None
    tree = {"a": [1, (2, 3)], "b": None}
    assert _pytree.tree_leaves(tree) == [1, 2, 3, None]  # None is a leaf, as in torch
    doubled = _pytree.tree_map(lambda x: None if x is None else x * 2, tree)
    assert doubled == {"a": [2, (4, 6)], "b": None}
    leaves, spec = _pytree.tree_flatten(tree)
    assert _pytree.tree_unflatten(leaves, spec) == tree
    assert mt.mps.is_available() is False and mt.xpu.device_count() == 0


def test_to_dense_of_a_strided_tensor_is_itself():
    # code written for sparse embedding gradients calls grad.to_dense(); ours are dense already
    emb = mt.nn.Embedding(5, 3, sparse=True)
    emb(mt.tensor([1, 2])).sum().backward()
    g = emb.weight.grad
    assert g.to_dense() is g and g.to_dense(mt.float64).dtype == mt.float64
