"""Normalisation layers: BatchNorm (running stats with the unbiased variance, momentum None,
eval mode, num_batches_tracked), InstanceNorm, LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm
against NumPy; float64 gradients; reprs and state dicts; no host reads while training."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def _t(a, device="cpu", grad=False, dtype=None):
    return minitorch.tensor(np.asarray(a), device=device, dtype=dtype, requires_grad=grad)


def _np(t):
    return t.detach().cpu().numpy()


def _norm(x, axes, eps=1e-5):
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


def test_batchnorm_training_and_running_stats(device):
    x = RNG.normal(size=(6, 3, 4))
    bn = nn.BatchNorm1d(3, momentum=0.2).double().to(device)
    with minitorch.no_grad():
        bn.weight.copy_(_t([1.0, 2.0, 0.5], device))
        bn.bias.copy_(_t([0.0, -1.0, 3.0], device))
    with count_transfers() as transfers:
        out = bn(_t(x, device))
    if device == "strict":
        assert transfers.count == 0
    want = _norm(x, (0, 2)) * np.array([1.0, 2.0, 0.5])[:, None] + np.array([0, -1, 3.0])[:, None]
    np.testing.assert_allclose(_np(out), want, rtol=1e-10, atol=1e-12)
    n = 6 * 4
    np.testing.assert_allclose(_np(bn.running_mean), 0.2 * x.mean(axis=(0, 2)), rtol=1e-12)
    unbiased = x.var(axis=(0, 2)) * n / (n - 1)
    np.testing.assert_allclose(_np(bn.running_var), 0.8 + 0.2 * unbiased, rtol=1e-12)
    assert int(bn.num_batches_tracked) == 1
    bn.eval()
    out = bn(_t(x, device))
    rm, rv = _np(bn.running_mean), _np(bn.running_var)
    want = (x - rm[:, None]) / np.sqrt(rv[:, None] + 1e-5) * np.array([1.0, 2.0, 0.5])[:, None]
    np.testing.assert_allclose(_np(out), want + np.array([0, -1, 3.0])[:, None], rtol=1e-10)
    assert int(bn.num_batches_tracked) == 1


def test_batchnorm_cumulative_average_without_host_reads(device):
    bn = nn.BatchNorm2d(2, momentum=None, affine=False).double().to(device)
    xs = [RNG.normal(size=(3, 2, 2, 2)) + i for i in range(3)]
    with count_transfers() as transfers:
        for x in xs:
            bn(_t(x, device))
    if device == "strict":
        assert transfers.count == 0
    means = np.mean([x.mean(axis=(0, 2, 3)) for x in xs], axis=0)
    np.testing.assert_allclose(_np(bn.running_mean), means, rtol=1e-12)
    vars_ = np.mean([x.var(axis=(0, 2, 3), ddof=1) for x in xs], axis=0)
    np.testing.assert_allclose(_np(bn.running_var), vars_, rtol=1e-12)
    assert int(bn.num_batches_tracked) == 3


def test_batchnorm_without_running_stats_uses_batch_stats_in_eval():
    bn = nn.BatchNorm1d(3, affine=False, track_running_stats=False).eval()
    x = RNG.normal(size=(5, 3))
    np.testing.assert_allclose(_np(bn(_t(x, dtype=minitorch.float64))), _norm(x, (0,)), rtol=1e-10)
    assert list(bn.state_dict()) == []
    assert repr(bn) == (
        "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
        "track_running_stats=False)"
    )


def test_batchnorm_state_dict_and_old_checkpoints():
    bn = nn.BatchNorm2d(4)
    assert list(bn.state_dict()) == [
        "weight",
        "bias",
        "running_mean",
        "running_var",
        "num_batches_tracked",
    ]
    assert bn.state_dict()["num_batches_tracked"].dtype is minitorch.int64
    old = OrderedDict((k, v) for k, v in bn.state_dict().items() if k != "num_batches_tracked")
    old._metadata = {"": {"version": 1}}
    fresh = nn.BatchNorm2d(4)
    fresh.load_state_dict(old)  # version 1: num_batches_tracked is filled in, not missing
    new = OrderedDict((k, v) for k, v in bn.state_dict().items() if k != "num_batches_tracked")
    new._metadata = {"": {"version": 2}}
    with pytest.raises(RuntimeError, match="num_batches_tracked"):
        nn.BatchNorm2d(4).load_state_dict(new)


def test_batchnorm_input_checks():
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        nn.BatchNorm1d(3)(minitorch.randn(2, 3, 4, 5))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(3)(minitorch.randn(2, 3, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(3)(minitorch.randn(1, 3))
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        nn.BatchNorm1d(4)(minitorch.randn(2, 3))


def test_instance_norm_and_its_running_stats():
    x = RNG.normal(size=(4, 3, 5))
    m = nn.InstanceNorm1d(3, affine=True, track_running_stats=True, momentum=0.5).double()
    out = m(_t(x))
    np.testing.assert_allclose(_np(out), _norm(x, (2,)), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(m.running_mean), 0.5 * x.mean(axis=2).mean(0), rtol=1e-12)
    np.testing.assert_allclose(
        _np(m.running_var), 0.5 + 0.5 * x.var(axis=2, ddof=1).mean(0), rtol=1e-12
    )
    # unbatched input
    out = nn.InstanceNorm2d(3)(_t(x[0][:, :, None] * np.ones(2)))
    assert out.shape == (3, 5, 2)
    with pytest.raises(ValueError, match="expected input's size at dim=1 to match num_features"):
        nn.InstanceNorm1d(4, affine=True)(_t(x))
    with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
        nn.InstanceNorm1d(4)(_t(x))
    assert repr(nn.InstanceNorm2d(3)) == (
        "InstanceNorm2d(3, eps=1e-05, momentum=0.1, "
        "affine=False, bias=False, track_running_stats=False)"
    )


def test_layer_group_rms_norm_match_numpy(device):
    x = RNG.normal(size=(2, 6, 3))
    w, b = RNG.normal(size=(6, 3)), RNG.normal(size=(6, 3))
    ln = nn.LayerNorm((6, 3)).double().to(device)
    with minitorch.no_grad():
        ln.weight.copy_(_t(w, device))
        ln.bias.copy_(_t(b, device))
    with count_transfers() as transfers:
        out_ln = ln(_t(x, device))
        out_gn = nn.GroupNorm(3, 6).double().to(device)(_t(x, device))
        out_rms = nn.RMSNorm(3, eps=1e-6).double().to(device)(_t(x, device))
    if device == "strict":
        assert transfers.count == 0
    np.testing.assert_allclose(_np(out_ln), _norm(x, (1, 2)) * w + b, rtol=1e-10)
    grouped = x.reshape(2, 3, 6)
    np.testing.assert_allclose(_np(out_gn), _norm(grouped, (2,)).reshape(x.shape), rtol=1e-10)
    rms = x / np.sqrt((x**2).mean(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(_np(out_rms), rms, rtol=1e-10)


def test_rms_norm_default_eps_is_the_dtype_epsilon():
    x = _t([[1e-5, -1e-5]], dtype=minitorch.float32)
    want = 1e-5 / np.sqrt(1e-10 + np.finfo(np.float32).eps)
    np.testing.assert_allclose(_np(F.rms_norm(x, (2,))), [[want, -want]], rtol=1e-5)


def test_local_response_norm_matches_numpy():
    x = RNG.normal(size=(2, 5, 3))
    out = nn.LocalResponseNorm(3, alpha=0.1, beta=0.5, k=2.0)(_t(x))
    sq = np.pad(x**2, ((0, 0), (1, 1), (0, 0)))
    avg = (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]) / 3
    np.testing.assert_allclose(_np(out), x / (2.0 + 0.1 * avg) ** 0.5, rtol=1e-10)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        lambda x, w, b: F.group_norm(x, 3, w[:3], b[:3]),
        lambda x, w, b: F.rms_norm(x, (4,), w),
        lambda x, w, b: F.batch_norm(x, None, None, w[:3], b[:3], training=True),
        lambda x, w, b: F.instance_norm(x, weight=w[:3], bias=b[:3]),
        lambda x, w, b: F.local_response_norm(x, 2, alpha=0.5),
    ],
    ids=["layer", "group", "rms", "batch", "instance", "lrn"],
)
def test_norm_gradients(fn):
    x = _t(RNG.normal(size=(2, 3, 4)), grad=True)
    w = _t(RNG.normal(size=4), grad=True)
    b = _t(RNG.normal(size=4), grad=True)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_reprs_and_defaults():
    assert repr(nn.LayerNorm(4)) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert repr(nn.LayerNorm([4, 5], elementwise_affine=False)) == (
        "LayerNorm((4, 5), eps=1e-05, elementwise_affine=False, bias=False)"
    )
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    assert repr(nn.RMSNorm(4)) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    assert repr(nn.LocalResponseNorm(3)) == "LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)"
    assert repr(nn.BatchNorm2d(4, eps=1e-3)) == (
        "BatchNorm2d(4, eps=0.001, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    )
    ln = nn.LayerNorm(3, bias=False)
    assert [n for n, _ in ln.named_parameters()] == ["weight"]
    np.testing.assert_array_equal(_np(ln.weight), [1, 1, 1])
    with pytest.raises(ValueError, match=r"num_channels \(6\) must be divisible by num_groups"):
        nn.GroupNorm(4, 6)
