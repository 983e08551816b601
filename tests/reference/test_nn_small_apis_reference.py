"""nn.attention, nn.modules.utils and SyncBatchNorm against torch."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _probe(lib):
    out = []
    att = lib.nn.attention
    out.append([(repr(b), str(b), int(b)) for b in att.SDPBackend.__members__.values()])
    with att.sdpa_kernel([att.SDPBackend.MATH, att.SDPBackend.CUDNN_ATTENTION]):
        c = lib.backends.cuda
        out.append(
            (
                c.flash_sdp_enabled(),
                c.math_sdp_enabled(),
                c.mem_efficient_sdp_enabled(),
                c.cudnn_sdp_enabled(),
            )
        )
    u = lib.nn.modules.utils
    out.append((u._pair(3), u._triple((1, 2, 3)), u._reverse_repeat_tuple((1, 2, 3), 2)))
    sd = collections.OrderedDict([("module.a", 1), ("module.b.c", 2), ("x", 3)])
    sd._metadata = {"": {}, "module": {"v": 1}, "module.b": {}}
    u.consume_prefix_in_state_dict_if_present(sd, "module.")
    out.append((list(sd.items()), sd._metadata))
    model = lib.nn.Sequential(lib.nn.BatchNorm1d(2), lib.nn.Sequential(lib.nn.BatchNorm2d(3)))
    out.append(repr(lib.nn.SyncBatchNorm.convert_sync_batchnorm(model)))
    return out


def test_small_apis_match_torch():
    assert _probe(mt) == _probe(torch)


def test_sync_batchnorm_values_match_torch():
    x = np.random.default_rng(0).standard_normal((4, 3, 5, 2))
    got, want = mt.nn.SyncBatchNorm(3).double(), torch.nn.SyncBatchNorm(3).double()
    for _ in range(2):
        y, ty = got(mt.tensor(x)), want(torch.tensor(x))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.running_var.numpy(), want.running_var.numpy(), rtol=1e-10)


def test_data_parallel_matches_torch_on_the_cpu():
    def probe(lib):
        dp = lib.nn.DataParallel(lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU()))
        return repr(dp), list(dp.state_dict()), dp.device_ids, [n for n, _ in dp.named_modules()]

    assert probe(mt) == probe(torch)


def test_lazy_norms_without_bias_match_torch():
    def probe(lib):
        out = []
        for cls, shape in [("LazyBatchNorm1d", (2, 3, 4)), ("LazyInstanceNorm2d", (2, 3, 4, 4))]:
            m = getattr(lib.nn, cls)(bias=False)
            m(lib.ones(*shape))
            out.append((repr(m), [n for n, _ in m.named_parameters()], list(m.state_dict())))
        return out

    assert probe(mt) == probe(torch)
