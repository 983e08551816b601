"""minitorch's CPU random streams are torch's, number for number (literals from torch 2.13)."""

import struct

import numpy as np
import pytest

import minitorch as torch


def _np(t):
    return t.detach().cpu().numpy()


def test_randn_small_and_vectorised_paths():
    torch.manual_seed(0)
    assert _np(torch.randn(3)).tolist() == [
        1.5409960746765137,
        -0.293428897857666,
        -2.1787893772125244,
    ]
    torch.manual_seed(0)  # >= 16: the block Box-Muller with a recomputed tail
    tail = [0.9318265914916992, 1.2590092420578003, 2.0049805641174316, 0.05373690277338028]
    assert _np(torch.randn(20))[-4:].tolist() == tail
    torch.manual_seed(0)
    assert _np(torch.randn(20, dtype=torch.float16))[-3:].tolist() == [
        1.5859375,
        0.9462890625,
        -0.84375,
    ]


def test_rand_randint_randperm_exponential():
    torch.manual_seed(0)
    expect = [0.9700530018065531, 0.707819864399788, 0.45938294312745087, 0.9207476841219603]
    assert _np(torch.rand(4, dtype=torch.float64)).tolist() == expect
    torch.manual_seed(0)
    assert _np(torch.randint(0, 100, (6,))).tolist() == [44, 39, 33, 60, 63, 79]
    torch.manual_seed(0)
    assert _np(torch.randperm(10)).tolist() == [4, 1, 7, 5, 3, 9, 0, 8, 6, 2]
    torch.manual_seed(0)
    expect = [3.508326186707642, 1.2303847641796768, 0.6150440938940115]
    assert _np(torch.empty(3, dtype=torch.float64).exponential_()).tolist() == expect


def test_linear_init_and_dropout_mask_are_torchs():
    torch.manual_seed(0)
    w = _np(torch.nn.Linear(784, 128).weight)
    assert w[0, :3].tolist() == [
        -0.00026738643646240234,
        0.019158700481057167,
        -0.029394470155239105,
    ]
    assert float(w.sum(dtype=np.float64)) == pytest.approx(2.201620101928711, abs=1e-5)
    torch.manual_seed(0)
    out = torch.nn.functional.dropout(torch.ones(12), 0.5)
    assert _np(out).tolist() == [0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 2, 2]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_strict_device_draws_the_cpu_numbers(device):
    torch.manual_seed(0)
    assert _np(torch.randn(3, device=device)).tolist() == [
        1.5409960746765137,
        -0.293428897857666,
        -2.1787893772125244,
    ]


def test_state_is_torchs_layout_with_the_cached_normal():
    torch.manual_seed(0)
    torch.randn(1, dtype=torch.float64)  # 4 words drawn; Box-Muller's sin half cached
    data = bytes(_np(torch.get_rng_state()))
    assert len(data) == 5056
    assert struct.unpack_from("<QiiQ", data) == (0, 621, 1, 4)
    assert struct.unpack_from("<i", data, 5040)[0] == 1
    a = _np(torch.randn(5))
    g = torch.Generator().set_state(torch.tensor(np.frombuffer(data, np.uint8)))
    np.testing.assert_array_equal(_np(torch.randn(5, generator=g)), a)
    assert torch.Generator().initial_seed() == 67280421310721
