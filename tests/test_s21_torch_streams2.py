"""minitorch's CPU streams are torch's, round 2 (literals from torch 2.13): multinomial (both
kernels, ties through libstdc++'s selection), Categorical.sample, nn.init.trunc_normal_."""

import struct
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch._backend import torch_stream_multinomial as tsm


def test_multinomial_without_and_with_replacement():
    torch.manual_seed(0)
    p = torch.tensor([0.1, 0.0, 0.3, 0.6, 0.0, 1.0])
    assert torch.multinomial(p, 4).tolist() == [5, 2, 3, 0]
    assert torch.multinomial(p, 6).tolist() == [5, 3, 0, 2, 1, 4]  # zero weights: ties
    assert torch.multinomial(p, 8, True).tolist() == [3, 5, 3, 3, 3, 3, 5, 5]


def test_multinomial_rows_float64_and_transposed_memory():
    torch.manual_seed(1)
    rows = [[1.0, 2.0, 3.0, 4.0], [4.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.0, 0.0]]
    p = torch.tensor(rows, dtype=torch.float64)
    assert torch.multinomial(p, 3).tolist() == [[3, 0, 2], [0, 3, 2], [1, 0, 3]]
    assert torch.multinomial(p, 5, True).tolist() == [
        [3, 2, 0, 1, 3],
        [0, 0, 0, 3, 3],
        [1, 1, 1, 0, 0],
    ]
    # torch fills its exponential draws in the memory order of a transposed input
    assert torch.multinomial(p.t().contiguous().t(), 2).tolist() == [[1, 3], [3, 0], [0, 1]]


def test_multinomial_ties_and_half():
    torch.manual_seed(2)
    z = torch.zeros(40)
    z[7] = 1
    z[30] = 2
    assert torch.multinomial(z, 12).tolist() == [30, 7, 26, 29, 28, 27, 23, 21, 22, 31, 24, 25]
    assert torch.multinomial(z.half(), 5).tolist() == [30, 7, 27, 26, 29]
    assert torch.multinomial(torch.rand(300), 3).tolist() == [210, 116, 36]


def test_libstdcxx_selection_replay_matches_torch_topk():
    assert tsm._stl_topk([i % 3 for i in range(40)], 20) == [
        20, 5, 32, 2, 38, 35, 8, 11, 26, 14, 23, 17, 29, 37, 31, 22, 1, 28, 25, 34,
    ]  # fmt: skip
    assert tsm._stl_topk([i % 2 for i in range(200)], 3) == [5, 1, 3]  # partial_sort path


def test_categorical_sample_is_torchs():
    torch.manual_seed(3)
    d = torch.distributions.Categorical(probs=torch.tensor([0.2, 0.5, 0.3]))
    assert d.sample((6,)).tolist() == [0, 1, 2, 0, 2, 1]


def test_trunc_normal_is_torchs_rejection_sampler():
    torch.manual_seed(0)
    init = torch.nn.init.trunc_normal_
    assert init(torch.empty(5), std=0.02).tolist() == [
        0.03081992268562317,
        -0.00586857832968235,
        -0.04357578605413437,
        0.011368625797331333,
        -0.021690446883440018,
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mean more than 2 std from [a, b]
        assert init(torch.empty(4, dtype=torch.float64), 0.5, 1.0, 1.0, 1.5).tolist() == [
            1.0893030876003755,
            1.1755538121969642,
            1.2906704599037873,
            1.144117946068075,
        ]
        assert init(torch.empty(20), 0.0, 1.0, -0.5, 0.5)[-3:].tolist() == [
            -0.41267913579940796,
            -0.1200508326292038,
            0.24431852996349335,
        ]
        assert init(torch.empty(6, dtype=torch.bfloat16), 0.0, 1.0, 2.0, 3.0).tolist() == [
            2.59375,
            2.15625,
            2.09375,
            2.1875,
            2.578125,
            2.125,
        ]
    assert torch.rand(2).tolist() == [0.23892420530319214, 0.5049309134483337]


def test_an_older_minitorch_state_loads_and_resumes_reproducibly():
    record = struct.pack("<8sIIIIQQQQQ", b"mtPCG64\0", 1, 0, 0, 0, 42, 123, 456, 789, 1)
    state = torch.tensor(np.frombuffer(record, np.uint8))
    g = torch.Generator().set_state(state)
    assert g.initial_seed() == 42
    expect = [0.3063657879829407, 0.28679323196411133, 0.4409908652305603]
    assert torch.rand(3, generator=g).tolist() == expect
    torch.set_rng_state(state)
    assert torch.rand(3).tolist() == expect
    assert len(torch.get_rng_state()) == 5056  # saved again as torch's
    even = struct.pack("<8sIIIIQQQQQ", b"mtPCG64\0", 1, 0, 0, 0, 42, 123, 456, 788, 1)
    with pytest.raises(RuntimeError, match="Invalid PCG64 state"):
        g.set_state(torch.tensor(np.frombuffer(even, np.uint8)))
    with pytest.raises(RuntimeError, match="size 5056 but found the input RNG state size to be 64"):
        g.set_state(torch.zeros(64, dtype=torch.uint8))
