"""Faster torch streams (session 27, perf12): libm's log1p(-u) replayed in NumPy (exponential_,
the serial normal, log_normal_, multinomial's keys), randperm's pointer jumping over the whole
array, and half-precision fills from float64 draws rounded through float32 as torch's. Values
are torch 2.13's (CPU), obtained by running torch on this machine."""

import math

import numpy as np

import minitorch as torch
from minitorch._backend import torch_stream as ts
from minitorch._backend import torch_stream_normal as tsn


def _bits(a):
    return np.ascontiguousarray(a).view(np.int64)


def test_log1p_replay_is_libm_element_for_element():
    s = ts.TorchStream(11)
    u = ts.unit_uniform(s, 300_000, "float64")
    grid = np.concatenate(
        [
            np.arange(0, 4096) * 2.0**-53,  # tiny u: fdlibm's other branch
            1 - np.arange(1, 4096) * 2.0**-53,  # u near 1
            0.2928932188134524 + np.arange(-2000, 2000) * 2.0**-53,  # the k = 0 / k != 0 split
            0.5 + np.arange(-2000, 2000) * 2.0**-53,  # f near 0 in the k != 0 branch
            1 - 2.0 ** -np.arange(1, 54),
        ]
    )
    for x in (u, grid):
        ref = np.fromiter(map(math.log1p, (-x).tolist()), dtype=np.float64, count=x.size)
        assert np.array_equal(_bits(tsn._log1p_neg(x)), _bits(ref))


def test_exponential_float64_values():
    want = {
        0: (
            [5.011894552439489, 1.757692520256681, 0.02065651128235937, 2.1963050717838564],
            1461.3725057091967,
        ),
        5: (
            [1.4675203020222698, 0.42968286375636694, 3.1653237888881076, 0.20660838377359983],
            1480.7377702697427,
        ),
    }
    for seed, (vals, total) in want.items():
        torch.manual_seed(seed)
        x = torch.empty(1000, dtype=torch.float64).exponential_(0.7).numpy()
        assert x[[0, 1, 499, 999]].tolist() == vals
        assert math.fsum(x.tolist()) == total


def test_half_fills_round_through_float32():
    # torch casts the float64 draw to float, then to half: double rounding at these elements
    torch.manual_seed(0)
    x = torch.empty(200003, dtype=torch.float16).exponential_(0.7)
    assert x[[15906, 87033, 115346]].float().tolist() == [0.58203125, 0.90625, 1.16015625]
    torch.manual_seed(0)
    x = torch.empty(200003, dtype=torch.bfloat16).exponential_(0.7)
    assert x[[100799, 124424, 159774]].float().tolist() == [0.203125, 0.44140625, 0.091796875]
    torch.manual_seed(3)
    x = torch.empty(2000, dtype=torch.float16).log_normal_(0.2, 0.5)
    assert x[36].item() == 1.51953125


def test_serial_normal_and_log_normal_values():
    torch.manual_seed(1)
    x = torch.empty(1001, 2, dtype=torch.float64)[:, 0].normal_(0.5, 2.0).numpy()
    assert x[[0, 1, 500, 1000]].tolist() == [
        1.8227043431409045,
        1.0338481965850375,
        1.7706105038126945,
        0.3941886928524123,
    ]
    assert math.fsum(x.tolist()) == 452.477914233822
    torch.manual_seed(2)
    y = torch.empty(301, dtype=torch.float64).log_normal_(0.1, 0.4).numpy()
    assert y[[0, 150, 300]].tolist() == [1.2929400451377593, 0.8420935753211267, 0.9087138013479623]
    assert math.fsum(y.tolist()) == 356.11660802600403


def test_multinomial_without_replacement_values():
    torch.manual_seed(4)
    p = torch.arange(1.0, 301.0).repeat(40, 1)
    p[:, ::7] = 0
    m = torch.multinomial(p, 100)
    assert m[0, :8].tolist() == [286, 272, 240, 292, 229, 83, 278, 247]
    assert m[39, -5:].tolist() == [207, 142, 215, 242, 67]
    assert int((m * torch.arange(100)).sum()) == 37254196
    torch.manual_seed(4)
    m = torch.multinomial(torch.rand(3, 70), 9)
    assert m.tolist() == [
        [63, 7, 28, 38, 0, 26, 20, 51, 64],
        [65, 54, 68, 0, 24, 40, 11, 56, 31],
        [41, 27, 35, 47, 65, 33, 7, 4, 20],
    ]


def test_randperm_values():
    torch.manual_seed(0)
    r = torch.randperm(100000)
    assert r[:6].tolist() == [36044, 73702, 76369, 2549, 52523, 32634]
    assert r[-3:].tolist() == [47534, 99934, 84786]
    assert int((r * torch.arange(100000) % 1000003).sum()) == 49926467648
    torch.manual_seed(9)
    assert torch.randperm(33).tolist() == [
        4, 29, 10, 20, 31, 1, 0, 9, 26, 8, 2, 15, 27, 25, 16, 32, 7, 22, 5, 11, 3, 21, 13, 17,
        6, 28, 23, 12, 19, 30, 14, 24, 18,
    ]  # fmt: skip
    assert torch.randperm(40).tolist() == [
        28, 19, 20, 1, 22, 33, 35, 15, 11, 8, 17, 2, 4, 26, 5, 16, 32, 38, 14, 37, 21, 7, 12,
        23, 3, 24, 0, 31, 34, 29, 30, 36, 9, 39, 18, 27, 6, 10, 25, 13,
    ]  # fmt: skip


def test_randperm_matches_the_swap_loop():
    s = ts.TorchStream(77)
    for n in list(range(0, 41)) + [257, 3001]:
        start = s.copy()
        got = ts.randperm(s, n)
        a = list(range(n))
        w = start.words(max(n - 1, 0)).tolist()
        for i in range(n - 1):
            j = i + w[i] % (n - i)
            a[i], a[j] = a[j], a[i]
        assert got.tolist() == a
        assert start.get_state() == s.get_state()
