"""minitorch/_misc_api.py against torch: the same calls give the same values, errors, messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _outcome(fn) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn()
        except Exception as e:  # any exception is the outcome compared
            return f"{type(e).__name__}: {e}"
    if hasattr(result, "tolist"):
        return f"{result.tolist()} {str(result.dtype).removeprefix('torch.')}"
    return repr(result)


CASES = {
    # (compile, cond and while_loop are checked in tests/test_misc_api.py, with torch's messages:
    # their first torch call imports dynamo, 1.5-2.5 s)
    "frombuffer": lambda L: L.frombuffer(bytearray(b"\x01\x00\x02\x00"), dtype=L.int16),
    "frombuffer_offset": lambda L: L.frombuffer(
        bytearray(np.arange(4.0).tobytes()), dtype=L.float64, offset=8, count=2
    ),
    "frombuffer_bytes": lambda L: L.frombuffer(bytes(8), dtype=L.float32),
    "frombuffer_multiple": lambda L: L.frombuffer(bytearray(10), dtype=L.float32),
    "frombuffer_offset_past": lambda L: L.frombuffer(bytearray(8), dtype=L.float32, offset=12),
    "frombuffer_negative_offset": lambda L: L.frombuffer(bytearray(8), dtype=L.int8, offset=-1),
    "frombuffer_count": lambda L: L.frombuffer(bytearray(8), dtype=L.float32, count=3),
    "frombuffer_empty": lambda L: L.frombuffer(bytearray(0), dtype=L.float32),
    "frombuffer_count_0": lambda L: L.frombuffer(bytearray(8), dtype=L.float32, count=0),
    "frombuffer_list": lambda L: L.frombuffer([1, 2], dtype=L.float32),
    "get_device": lambda L: L.get_device(L.zeros(2)),
    "vulkan": lambda L: L.is_vulkan_available(),
    "cxx11_abi": lambda L: L.compiled_with_cxx11_abi(),
    "resize_shrink": lambda L: L.arange(6.0).resize_(2, 2),
    "resize_size": lambda L: L.arange(6.0).resize_(L.Size([3])),
    "resize_same": lambda L: L.arange(4.0).reshape(2, 2).resize_(2, 2),
    "resize_as": lambda L: L.arange(6.0).resize_as_(L.zeros(1, 5)),
    "resize_grad": lambda L: L.zeros(2, requires_grad=True).resize_(3),
    "resize_as_grad": lambda L: L.zeros(2, requires_grad=True).resize_as_(L.zeros(2)),
    "binomial_int": lambda L: L.binomial(L.tensor([10, 5]), L.tensor([0.5, 0.2])),
    "binomial_number": lambda L: L.binomial(L.tensor([10.0]), 0.5),
    "binomial_certain": lambda L: L.binomial(L.tensor([-1.0, 0.0, 7.0]), L.tensor([0.5, 0.5, 1.5])),
    "binomial_backward": lambda L: (
        L.binomial(L.tensor([3.0], requires_grad=True), L.tensor([0.5])).sum().backward()
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_outcome(name):
    assert _outcome(lambda: CASES[name](mt)) == _outcome(lambda: CASES[name](torch))


def test_binomial_moments_match_torch():
    count, prob = [20.0, 7.0, 50.0], [0.25, 0.5, 0.9]
    mt.manual_seed(0)
    torch.manual_seed(0)
    got = mt.binomial(mt.tensor([count] * 3000), mt.tensor([prob] * 3000))
    want = torch.binomial(torch.tensor([count] * 3000), torch.tensor([prob] * 3000))
    np.testing.assert_allclose(got.mean(0).numpy(), want.mean(0).numpy(), rtol=0.03)
    np.testing.assert_allclose(got.var(0).numpy(), want.var(0).numpy(), rtol=0.15)


def test_frombuffer_shares_memory_as_torch():
    for lib in (mt, torch):
        buf = bytearray(np.arange(3, dtype=np.int32).tobytes())
        lib.frombuffer(buf, dtype=lib.int32)[1] = 9
        assert np.frombuffer(buf, np.int32).tolist() == [0, 9, 2], lib.__name__
