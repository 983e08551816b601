"""The fast paths of the torch-exact CPU streams give torch's numbers (literals from torch 2.13):
randperm without the swap loop, the chunked float32 normal kernel, the float64 log checked
against libm, the Python-float Box-Muller for a few values."""

import math

import numpy as np

import minitorch as torch
from minitorch._backend import torch_stream as ts
from minitorch._backend import torch_stream_normal as tsn


def _np(t):
    return t.detach().cpu().numpy()


def _swap_loop(z, n):
    a = list(range(n))
    for i, k in enumerate(z.tolist()):
        a[i], a[i + k] = a[i + k], a[i]
    return a


def test_randperm_replay_matches_the_swap_loop():
    rng = np.random.default_rng(0)
    for n in [*range(2, 40), 100, 1000, 4097]:
        bound = np.arange(n, 1, -1)
        cases = [rng.integers(0, bound), np.zeros(n - 1, np.int64), bound - 1, bound // 2]
        for z in cases:
            z = np.asarray(z, dtype=np.int64)
            assert ts._swaps_result(z.copy(), n).tolist() == _swap_loop(z, n), n


def test_randperm_large_is_torchs():
    torch.manual_seed(3)
    p = _np(torch.randperm(60000))
    assert p[:6].tolist() == [38986, 46111, 53123, 54054, 9664, 45710]
    assert p[-3:].tolist() == [59646, 49374, 32804]
    assert int((p * np.arange(60000)).sum() % (2**61 - 1)) == 54067287695870
    torch.manual_seed(11)
    p = _np(torch.randperm(1000, dtype=torch.int32))
    assert p[:6].tolist() == [441, 349, 148, 656, 429, 797]
    assert int((p.astype(np.int64) * np.arange(1000)).sum()) == 247175913
    assert sorted(p.tolist()) == list(range(1000))


def test_randn_float32_across_kernel_chunks():
    torch.manual_seed(0)
    x = _np(torch.randn(70001))  # more than one chunk of blocks, and a recomputed tail
    expect = [
        -1.1258398294448853,
        -1.4578040838241577,
        0.019297275692224503,
        0.4088961184024811,
        0.6242389678955078,
    ]
    assert x[[0, 65535, 65536, 65537, 70000]].tolist() == expect
    assert float(x.astype(np.float64).sum()) == -204.2051387465981


def test_float32_log_and_sincos_kernels_on_edge_inputs():
    w = np.array([1.0, 2.0**-24, 0.5, 0.70710677, 0.70710683, 0.75, 1 - 2.0**-24], np.float32)
    log = tsn._log_avx2(w)
    assert log[0] == 0 and not np.signbit(log[0])
    np.testing.assert_allclose(log, np.log(w.astype(np.float64)), rtol=2e-7, atol=1e-7)
    t = (np.float32(2 * math.pi) * np.linspace(0, 1, 33, dtype=np.float32)).astype(np.float32)
    sin, cos = tsn._sincos_avx2(t)
    np.testing.assert_allclose(sin, np.sin(t.astype(np.float64)), atol=2e-7)
    np.testing.assert_allclose(cos, np.cos(t.astype(np.float64)), atol=2e-7)


def test_randn_float64_and_geometric_use_libms_log():
    torch.manual_seed(1)
    x = _np(torch.randn(50000, dtype=torch.float64))
    expect = [-0.31128955419003207, -0.7130302768401124, 0.20021018149942874, -1.2816372748201101]
    assert x[[0, 1, 24999, 49999]].tolist() == expect
    assert float(x.sum()) == 122.03325588514082
    torch.manual_seed(2)
    g = _np(torch.empty(30000, dtype=torch.float64).geometric_(0.3))
    assert g[:8].tolist() == [1.0, 7.0, 1.0, 2.0, 1.0, 2.0, 6.0, 4.0]
    assert float(g.sum()) == 100715.0


def test_log_libm_equals_math_log():
    rng = np.random.default_rng(1)
    parts = [
        1 - rng.integers(0, 2**53, 20000, dtype=np.uint64).astype(np.float64) * 2.0**-53,
        1 + rng.standard_normal(20000) * 1e-9,  # near 1: no table cancellation
        rng.integers(1, 0x7FF0000000000000, 20000, dtype=np.uint64).view(np.float64),
        rng.random(1000) * 1e-310,  # subnormal
        1 - np.arange(1, 20001) * 2.0**-53,
    ]
    x = np.concatenate(parts)
    expect = np.array([math.log(v) for v in x.tolist()])
    np.testing.assert_array_equal(tsn._log_libm(x), expect)
    odd = tsn._log_libm(np.array([0.0, math.inf, 1.0]), tsn._log_or_inf)
    assert odd.tolist() == [-math.inf, math.inf, 0.0]


def test_few_normals_in_python_floats_keep_the_cached_value():
    torch.manual_seed(5)
    x = _np(torch.randn(7, dtype=torch.float64))
    y = _np(torch.randn(3, dtype=torch.float64))  # starts with the value cached by the 7th
    assert x.tolist() == [
        -0.48678075071242677,
        -0.6038215878840039,
        -0.5580962308236769,
        0.6675243015344896,
        -0.19741509323400558,
        1.9427835329161933,
        -1.4017020125953694,
    ]
    assert y.tolist() == [-0.7625571360284942, 0.631213407129647, -0.8991351628864754]
    torch.manual_seed(4)
    s = _np(torch.empty(40, 3)[:, 1].normal_(1.5, 0.5))  # strided: the serial path, 40 values
    assert s[:3].tolist() == [0.6973618268966675, 1.6162428855895996, 2.6199350357055664]
    assert s[-2:].tolist() == [1.4285860061645508, 2.395435094833374]
