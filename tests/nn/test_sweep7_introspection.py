"""Sweep 7 (introspection): DistributedDataParallel, torch's private helpers research code imports,
class hierarchies and __module__ paths that isinstance checks and reprs see, *_with_indices
defaults, and docstrings of nn.Module's public methods."""

from __future__ import annotations

import copy
import importlib
import inspect
import pickle
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

# --- DistributedDataParallel ---


def test_ddp_importable_and_isinstance_checks():
    from minitorch.nn.parallel import DistributedDataParallel
    from minitorch.nn.parallel.distributed import DistributedDataParallel as DDP

    assert DDP is DistributedDataParallel is nn.parallel.DistributedDataParallel
    assert "DistributedDataParallel" in nn.parallel.__all__
    assert issubclass(DDP, nn.Module)
    assert not isinstance(nn.Linear(2, 2), (nn.DataParallel, DDP))


def test_ddp_without_process_group_raises_torchs_error():
    with pytest.raises(ValueError, match=r"^Default process group has not been initialized, "):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))


# --- private helpers: transformer._get_clones / _get_activation_fn ---


def test_get_clones_deep_copies_in_module_list():
    from minitorch.nn.modules.transformer import _get_clones

    base = nn.Linear(2, 3)
    layers = _get_clones(base, 3)
    assert type(layers) is nn.ModuleList and len(layers) == 3
    ids = {id(p) for layer in layers for p in layer.parameters()} | {id(base.weight)}
    assert len(ids) == 7  # 3 copies x (weight, bias) + the original weight: nothing shared
    for layer in layers:
        np.testing.assert_array_equal(layer.weight.detach().numpy(), base.weight.detach().numpy())


def test_get_activation_fn():
    from minitorch.nn.modules.transformer import _get_activation_fn

    assert _get_activation_fn("relu") is F.relu
    assert _get_activation_fn("gelu") is F.gelu
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        _get_activation_fn("tanh")
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not "):
        _get_activation_fn(F.relu)  # torch's helper takes names only


def test_transformer_layers_still_take_callable_activation():
    layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, activation=F.silu)
    assert layer.activation is F.silu
    assert nn.TransformerEncoderLayer(4, 2, 8, activation="gelu").activation is F.gelu


# --- F._Reduction ---


def test_functional_reduction_helpers():
    R = F._Reduction
    assert R is importlib.import_module("minitorch.nn._reduction")
    assert [R.get_enum(r) for r in ("none", "mean", "sum")] == [0, 1, 2]
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        R.get_enum("bogus")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert R.get_enum("elementwise_mean") == 1
        assert R.legacy_get_string(None, None) == "mean"
        assert R.legacy_get_string(False, True) == "sum"
        assert R.legacy_get_string(True, False) == "none"
        assert R.legacy_get_enum(False, None) == 2
    assert len(w) == 5 and all(issubclass(x.category, UserWarning) for x in w)
    assert "reduction='sum'" in str(w[2].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert R.legacy_get_string(False, False, emit_warning=False) == "none"


# --- F._in_projection_packed ---


def _proj_np(x, w, b):
    return x @ w.T + b


@pytest.mark.parametrize("case", ["self", "kv_shared", "separate"])
def test_in_projection_packed_matches_numpy(case):
    g = np.random.default_rng(0)
    qn, kn, vn = (g.standard_normal(s) for s in [(2, 3, 4), (5, 3, 4), (5, 3, 4)])
    wn, bn = g.standard_normal((12, 4)), g.standard_normal(12)
    q, k, v = (minitorch.tensor(a) for a in (qn, kn, vn))
    w, b = minitorch.tensor(wn), minitorch.tensor(bn)
    if case == "self":
        args, ref_in = (q, q, q), (qn, qn, qn)
    elif case == "kv_shared":
        args, ref_in = (q, k, k), (qn, kn, kn)
    else:
        args, ref_in = (q, k, v), (qn, kn, vn)
    out = F._in_projection_packed(*args, w, b)
    assert isinstance(out, tuple) and len(out) == 3
    for i, (o, x) in enumerate(zip(out, ref_in, strict=True)):
        ref = _proj_np(x, wn[4 * i : 4 * i + 4], bn[4 * i : 4 * i + 4])
        np.testing.assert_allclose(o.numpy(), ref, rtol=1e-12, atol=1e-12, err_msg=f"{case} {i}")
        assert o.is_contiguous(), f"{case} output {i} is not contiguous (torch's are)"
    no_bias = F._in_projection_packed(*args, w)
    np.testing.assert_allclose(no_bias[2].numpy(), ref_in[2] @ wn[8:].T, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", ["self", "kv_shared"])
def test_in_projection_packed_gradients(case):
    g = np.random.default_rng(1)
    q = minitorch.tensor(g.standard_normal((2, 3)), requires_grad=True)
    k = minitorch.tensor(g.standard_normal((4, 3)), requires_grad=True)
    w = minitorch.tensor(g.standard_normal((9, 3)), requires_grad=True)
    b = minitorch.tensor(g.standard_normal(9), requires_grad=True)

    if case == "self":

        def fn(q, w, b):
            return F._in_projection_packed(q, q, q, w, b)

        inputs = (q, w, b)
    else:

        def fn(q, k, w, b):
            return F._in_projection_packed(q, k, k, w, b)

        inputs = (q, k, w, b)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


# --- class hierarchy ---


def test_avg_pools_subclass_avg_pool_nd():
    base = nn.modules.pooling._AvgPoolNd
    assert all(issubclass(c, base) for c in (nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d))
    assert base.__constants__ == [
        "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
    ]  # fmt: skip
    p1 = nn.AvgPool1d(2)
    assert not hasattr(p1, "divisor_override")  # torch's AvgPool1d has none
    assert repr(p1) == "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))"
    x = minitorch.tensor([[[1.0, 3.0, 5.0, 9.0]]])
    np.testing.assert_allclose(p1(x).numpy(), [[[2.0, 7.0]]])
    p2 = nn.AvgPool2d(2, divisor_override=1)
    np.testing.assert_allclose(p2(minitorch.ones(1, 1, 2, 2)).numpy(), [[[[4.0]]]])


def test_reflection_and_replication_pad_bases():
    padding = nn.modules.padding
    for n in (1, 2, 3):
        assert issubclass(getattr(nn, f"ReflectionPad{n}d"), padding._ReflectionPadNd)
        assert issubclass(getattr(nn, f"ReplicationPad{n}d"), padding._ReplicationPadNd)
    assert not issubclass(nn.ReflectionPad2d, padding._ReplicationPadNd)
    x = minitorch.tensor([[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(nn.ReflectionPad1d(1)(x).numpy(), [[2.0, 1.0, 2.0, 3.0, 2.0]])
    np.testing.assert_allclose(nn.ReplicationPad1d(1)(x).numpy(), [[1.0, 1.0, 2.0, 3.0, 3.0]])
    assert nn.ReflectionPad2d(1).padding == (1, 1, 1, 1)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_lazy_batch_norm_is_not_its_regular_class_until_materialized(n):
    lazy_cls, cls = getattr(nn, f"LazyBatchNorm{n}d"), getattr(nn, f"BatchNorm{n}d")
    m = lazy_cls()
    assert not isinstance(m, cls)
    assert isinstance(m, nn.modules.batchnorm._BatchNorm)
    shape = {1: (2, 3), 2: (2, 3, 4, 4), 3: (2, 3, 2, 2, 2)}[n]
    x = minitorch.tensor(np.random.default_rng(n).standard_normal(shape).astype(np.float32))
    out = m(x)
    assert type(m) is cls and m.num_features == 3
    axes = tuple(i for i in range(len(shape)) if i != 1)
    xn = x.numpy()
    ref = (xn - xn.mean(axes, keepdims=True)) / np.sqrt(xn.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-5, atol=1e-5)


def test_lazy_batch_norm_checks_rank_before_materializing():
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.LazyBatchNorm2d()(minitorch.ones(2, 3, 4))


# --- __module__ paths ---


@pytest.mark.parametrize(
    "obj, module",
    [
        (nn.MultiheadAttention, "minitorch.nn.modules.activation"),
        (minitorch.optim.AdamW, "minitorch.optim.adamw"),
        (minitorch.optim.lr_scheduler.LRScheduler, "minitorch.optim.lr_scheduler"),
        (minitorch.optim.lr_scheduler.CyclicLR, "minitorch.optim.lr_scheduler"),
        (minitorch.optim.lr_scheduler.OneCycleLR, "minitorch.optim.lr_scheduler"),
        (minitorch.optim.lr_scheduler.CosineAnnealingWarmRestarts, "minitorch.optim.lr_scheduler"),
        (minitorch.optim.Adafactor, "minitorch.optim"),
        (minitorch.optim.Muon, "minitorch.optim"),
        (minitorch.optim.adamw.adamw, "minitorch.optim.adamw"),
    ],
)
def test_module_path_is_torchs_and_exposes_the_object(obj, module):
    assert obj.__module__ == module
    assert getattr(importlib.import_module(module), obj.__name__) is obj


def test_old_module_paths_still_resolve():
    from minitorch.nn.modules.transformer import MultiheadAttention
    from minitorch.optim.adam import AdamW, adamw

    assert MultiheadAttention is nn.MultiheadAttention
    assert AdamW is minitorch.optim.AdamW and adamw is minitorch.optim.adamw.adamw
    assert "MultiheadAttention" in nn.modules.__all__
    assert len(nn.modules.__all__) == len(set(nn.modules.__all__))
    assert inspect.getsource(nn.MultiheadAttention).startswith("class MultiheadAttention(")
    assert inspect.getsource(minitorch.optim.AdamW).startswith("class AdamW(Adam):")


def test_pickling_moved_classes_round_trips():
    mha = nn.MultiheadAttention(4, 2)
    back = pickle.loads(pickle.dumps(mha))
    assert type(back) is nn.MultiheadAttention
    np.testing.assert_array_equal(back.in_proj_weight.detach().numpy(),
                                  mha.in_proj_weight.detach().numpy())  # fmt: skip
    params = [nn.Parameter(minitorch.ones(2))]
    opt = minitorch.optim.AdamW(params, lr=0.5)
    blob = pickle.dumps(opt, protocol=2)
    assert b"minitorch.optim.adamw\nAdamW" in blob
    back = pickle.loads(blob)
    assert type(back) is minitorch.optim.AdamW and back.param_groups[0]["lr"] == 0.5
    # a pickle written before the move names minitorch.optim.adam
    old = pickle.loads(
        blob.replace(b"minitorch.optim.adamw\nAdamW", b"minitorch.optim.adam\nAdamW")
    )
    assert type(old) is minitorch.optim.AdamW
    sched = minitorch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1)
    assert type(pickle.loads(pickle.dumps(sched))) is minitorch.optim.lr_scheduler.CyclicLR
    assert type(copy.deepcopy(minitorch.optim.Adafactor(params))) is minitorch.optim.Adafactor


# --- *_with_indices defaults ---


@pytest.mark.parametrize(
    "name",
    [
        "max_pool1d_with_indices",
        "max_pool2d_with_indices",
        "max_pool3d_with_indices",
        "adaptive_max_pool1d_with_indices",
        "adaptive_max_pool2d_with_indices",
        "adaptive_max_pool3d_with_indices",
        "fractional_max_pool2d_with_indices",
        "fractional_max_pool3d_with_indices",
    ],
)
def test_with_indices_default_return_indices_false(name):
    fn = getattr(F, name)
    assert inspect.signature(fn).parameters["return_indices"].default is False
    assert fn.__doc__


def test_with_indices_still_returns_values_and_indices():
    x = minitorch.tensor([[[[1.0, 4.0], [3.0, 2.0]]]])
    for out in (
        F.max_pool2d_with_indices(x, 2),
        F.max_pool2d_with_indices(x, 2, return_indices=False),
        F.adaptive_max_pool2d_with_indices(x, 1),
    ):
        values, indices = out
        assert values.item() == 4.0 and indices.item() == 1


# --- nn.Module docstrings ---


def test_module_public_methods_have_docstrings():
    missing = [
        n
        for n in dir(nn.Module)
        if not n.startswith("_")
        and callable(getattr(nn.Module, n))
        and getattr(nn.Module, n).__doc__ is None
    ]
    assert missing == []
    assert "Mirrors torch.nn.Module.train" in nn.Module.train.__doc__


def test_legacy_container_adds_keyword_modules_and_warns():
    lin = nn.Linear(1, 1)
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = nn.Container(a=lin, b=nn.ReLU())
    assert [n for n, _ in c.named_children()] == ["a", "b"] and c.a is lin
    assert isinstance(c, nn.Module) and nn.modules.Container is nn.Container


def test_lazy_instance_norm_is_no_instance_norm_until_materialized():
    m = nn.LazyInstanceNorm2d()
    assert not isinstance(m, nn.InstanceNorm2d)
    assert isinstance(m, nn.modules.batchnorm._InstanceNorm)
    y = m(minitorch.randn(2, 3, 4, 4))
    assert type(m) is nn.InstanceNorm2d and y.shape == (2, 3, 4, 4) and m.weight.shape == (3,)
