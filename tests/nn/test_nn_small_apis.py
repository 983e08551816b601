"""nn.attention (sdpa_kernel), nn.modules.utils (_pair, consume_prefix_in_state_dict_if_present)
and SyncBatchNorm."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitorch as mt
from minitorch.nn.attention import SDPBackend, sdpa_kernel
from minitorch.nn.modules.utils import (
    _pair,
    _quadruple,
    _reverse_repeat_tuple,
    _single,
    _triple,
    consume_prefix_in_state_dict_if_present,
)


def test_sdpa_kernel_sets_and_restores_the_switches():
    cuda = mt.backends.cuda
    with sdpa_kernel(SDPBackend.MATH):
        assert cuda.math_sdp_enabled() and not cuda.flash_sdp_enabled()
        assert not cuda.mem_efficient_sdp_enabled() and not cuda.cudnn_sdp_enabled()
        q = mt.randn(1, 2, 3, 4)
        out = mt.nn.functional.scaled_dot_product_attention(q, q, q)
    assert out.shape == (1, 2, 3, 4)
    assert cuda.flash_sdp_enabled() and cuda.mem_efficient_sdp_enabled()
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
        assert cuda.flash_sdp_enabled() and not cuda.math_sdp_enabled()
    assert cuda.math_sdp_enabled()
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with sdpa_kernel("math"):
            pass
    assert (repr(SDPBackend.MATH), str(SDPBackend.FLASH_ATTENTION)) == (
        "<SDPBackend.MATH: 0>",
        "SDPBackend.FLASH_ATTENTION",
    )
    assert int(SDPBackend.ERROR) == -1


def test_argument_tuples():
    assert (_single(2), _pair(3), _triple(1), _quadruple(0)) == ((2,), (3, 3), (1, 1, 1), (0,) * 4)
    assert _pair([1, 2]) == (1, 2) and _pair.__name__ == "_pair"
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)


def test_consume_prefix_in_state_dict():
    sd = mt.nn.Sequential(mt.nn.Linear(2, 2)).state_dict()
    wrapped = collections.OrderedDict(("module." + k, v) for k, v in sd.items())
    wrapped._metadata = {"": {}, "module": {"version": 1}, "module.0": {}}
    consume_prefix_in_state_dict_if_present(wrapped, "module.")
    assert list(wrapped) == ["0.weight", "0.bias"]
    assert wrapped._metadata == {"": {"version": 1}, "0": {}}


def test_sync_batchnorm_is_batchnorm_over_any_rank():
    mt.manual_seed(0)
    x = mt.randn(4, 3, 5, 2, 2)
    sync, ref = mt.nn.SyncBatchNorm(3), mt.nn.BatchNorm3d(3)
    np.testing.assert_allclose(sync(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(sync.running_var.numpy(), ref.running_var.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="expected at least 2D input"):
        sync(mt.randn(3))
    model = mt.nn.Sequential(mt.nn.Conv2d(1, 3, 1), mt.nn.BatchNorm2d(3).eval())
    old = model[1]
    converted = mt.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    bn = converted[1]
    assert type(bn) is mt.nn.SyncBatchNorm and not bn.training
    assert bn.weight is old.weight and bn.running_mean is old.running_mean
    assert repr(bn).startswith("SyncBatchNorm(3, eps=1e-05")


def test_data_parallel_without_a_gpu_calls_the_module():
    mt.manual_seed(0)
    inner = mt.nn.Linear(2, 3)
    dp = mt.nn.DataParallel(inner)
    x = mt.randn(4, 2)
    np.testing.assert_array_equal(dp(x).detach().numpy(), inner(x).detach().numpy())
    assert list(dp.state_dict()) == ["module.weight", "module.bias"] and dp.device_ids == []
    assert repr(dp).startswith("DataParallel(\n  (module): Linear(")
    state = dp.state_dict()
    consume_prefix_in_state_dict_if_present(state, "module.")
    fresh = mt.nn.Linear(2, 3)
    fresh.load_state_dict(state)  # a DataParallel checkpoint loads into the bare model
    np.testing.assert_array_equal(fresh(x).detach().numpy(), inner(x).detach().numpy())
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        mt.nn.parallel.data_parallel(inner, x)


def test_deprecated_sdp_kernel_context():
    cuda = mt.backends.cuda
    with pytest.warns(FutureWarning, match="sdp_kernel\\(\\)` is deprecated"):
        with cuda.sdp_kernel(enable_flash=False, enable_cudnn=False):
            assert not cuda.flash_sdp_enabled() and not cuda.cudnn_sdp_enabled()
            assert cuda.math_sdp_enabled() and cuda.mem_efficient_sdp_enabled()
    assert cuda.flash_sdp_enabled() and cuda.cudnn_sdp_enabled()


def test_lazy_norm_without_bias():
    m = mt.nn.LazyBatchNorm2d(bias=False)
    m(mt.ones(2, 3, 4, 4))
    assert [n for n, _ in m.named_parameters()] == ["weight"] and m.bias is None
    assert type(m) is mt.nn.BatchNorm2d and "bias=False" in repr(m)
