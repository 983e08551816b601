"""Session 61: clamp's number bounds where one is an int in [2**63, 2**64), which torch reads as a
uint64 number: the bounds promote among themselves first (an int64 or bool bound with it is
refused), then with a bool tensor (refused); an integer tensor's conversion overflows
(tests/reference/test_s61_clamp_uint64_reference.py compares with torch)."""

import pytest

import minitorch as torch

BIG = 2**63
PROMOTE = "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote"


@pytest.mark.parametrize("method", ["clamp", "clamp_"])
@pytest.mark.parametrize("bounds", [{"max": BIG}, {"min": BIG}])
def test_a_bool_tensor_refuses_the_uint64_bound(method, bounds):
    with pytest.raises(RuntimeError, match=f"^{PROMOTE} Bool and UInt64$"):
        getattr(torch.zeros(2, dtype=torch.bool), method)(**bounds)


@pytest.mark.parametrize("method", ["clamp", "clamp_"])
@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int64])
def test_bounds_promote_among_themselves_first(method, dtype):
    t = torch.zeros(2, dtype=dtype)
    with pytest.raises(RuntimeError, match=f"^{PROMOTE} Long and UInt64$"):
        getattr(t, method)(min=0, max=2**64 - 1)
    with pytest.raises(RuntimeError, match=f"^{PROMOTE} Bool and UInt64$"):
        getattr(t, method)(min=True, max=BIG)


def test_an_int_tensor_overflows_and_a_float_bound_takes_it():
    with pytest.raises(RuntimeError, match="cannot be converted to type int64_t without overflow"):
        torch.zeros(2, dtype=torch.int64).clamp(max=BIG)
    assert torch.zeros(2, dtype=torch.int64).clamp(min=2.5, max=BIG).tolist() == [2.5, 2.5]
    with pytest.raises(OverflowError):  # past uint64: the parser's error first
        torch.zeros(2, dtype=torch.bool).clamp(min=BIG, max=2**70)
