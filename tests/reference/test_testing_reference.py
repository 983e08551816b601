"""minitorch.testing against torch.testing: the same calls raise the same errors and messages."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

NAN, INF = math.nan, math.inf

# each case is written once for both libraries: case(L) with L = minitorch or torch
CASES = {
    "float32": lambda L: L.testing.assert_close(L.tensor([1.0, 2, 3]), L.tensor([1.0, 2.5, 3.1])),
    "float64": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2, 3], dtype=L.float64), L.tensor([1.0, 2.5, 3.1], dtype=L.float64)
    ),
    "2d": lambda L: L.testing.assert_close(
        L.tensor([[1.0, 2], [3, 4]]), L.tensor([[1.0, 2], [3, 5]])
    ),
    "0d": lambda L: L.testing.assert_close(L.tensor(1.0), L.tensor(2.0)),
    "0d_int": lambda L: L.testing.assert_close(L.tensor(3), L.tensor(4)),
    "int": lambda L: L.testing.assert_close(L.tensor([[2, 3]]), L.tensor([[0, 3]])),
    "bool": lambda L: L.testing.assert_close(L.tensor([True, False]), L.tensor([True, True])),
    "dtype": lambda L: L.testing.assert_close(L.tensor([1.0, 2]), L.tensor([1, 2])),
    "no_check_dtype": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2]), L.tensor([1, 2]), check_dtype=False
    ),
    "mixed_float": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2], dtype=L.float64), L.tensor([1.0, 2.0001]), check_dtype=False
    ),
    "half_vs_float": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2], dtype=L.float16), L.tensor([1.0, 2.0001]), check_dtype=False
    ),
    "float16": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2], dtype=L.float16), L.tensor([1.0, 2.1], dtype=L.float16)
    ),
    "bfloat16": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2], dtype=L.bfloat16), L.tensor([1.0, 2.5], dtype=L.bfloat16)
    ),
    "shape": lambda L: L.testing.assert_close(L.tensor([1.0, 2]), L.tensor([1.0, 2, 3])),
    "shape_0d": lambda L: L.testing.assert_close(L.tensor(1.0), L.tensor([2.0])),
    "nan": lambda L: L.testing.assert_close(L.tensor([1.0, NAN]), L.tensor([1.0, NAN])),
    "equal_nan": lambda L: L.testing.assert_close(
        L.tensor([[1.0, NAN], [3, 4]]), L.tensor([[2.0, NAN], [3, 4]]), equal_nan=True
    ),
    "inf": lambda L: L.testing.assert_close(L.tensor([1.0, INF]), L.tensor([1.0, -INF])),
    "zero_expected": lambda L: L.testing.assert_close(L.tensor([0.0, 0]), L.tensor([1e-4, 0])),
    "tiny_expected": lambda L: L.testing.assert_close(L.tensor([0.0, 1]), L.tensor([0.0, 1e-9])),
    "msg": lambda L: L.testing.assert_close(L.tensor([1.0, 2]), L.tensor([1.0, 3]), msg="custom"),
    "msg_callable": lambda L: L.testing.assert_close(
        [L.tensor([1.0, 2])], [L.tensor([1.0, 3])], msg=lambda m: "<" + m + ">"
    ),
    "msg_nested": lambda L: L.testing.assert_close(
        [{"a": [L.tensor([1.0])]}], [{"a": [L.tensor([2.0])]}], msg="m"
    ),
    "only_rtol": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.0]), rtol=1e-3),
    "exact": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2]), L.tensor([1.0, 3]), rtol=0, atol=0
    ),
    "int_tolerance": lambda L: L.testing.assert_close(
        L.tensor([5, 7]), L.tensor([6, 7]), rtol=0.1, atol=0
    ),
    "python_float": lambda L: L.testing.assert_close(1.0, 1.1),
    "python_int": lambda L: L.testing.assert_close(1, 2),
    "python_types": lambda L: L.testing.assert_close(1, 1.0),
    "python_bool": lambda L: L.testing.assert_close(True, False),
    "list": lambda L: L.testing.assert_close([1.0, 2.0], [1.0, 2.5]),
    "list_length": lambda L: L.testing.assert_close([1.0, 2.0], [1.0]),
    "dict": lambda L: L.testing.assert_close({"a": L.tensor([1.0])}, {"a": L.tensor([2.0])}),
    "dict_keys": lambda L: L.testing.assert_close({"a": 1}, {"b": 1}),
    "numpy": lambda L: L.testing.assert_close(np.array([1.0, 2]), np.array([1.0, 3])),
    "strings": lambda L: L.testing.assert_close("a", "a"),
    "requires_grad": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2], requires_grad=True), L.tensor([1.0, 2])
    ),
    "allclose": lambda L: L.testing.assert_allclose(L.tensor([1.0, 2]), [1.0, 2.0001]),
    "allclose_fails": lambda L: L.testing.assert_allclose(L.tensor([1.0, 2]), [1.0, 2.1]),
    "allclose_nan": lambda L: L.testing.assert_allclose([1.0, NAN], [1.0, NAN]),
    "make_int_grad": lambda L: L.testing.make_tensor(
        2, 3, dtype=L.int64, device="cpu", requires_grad=True
    ),
    "make_low_high": lambda L: L.testing.make_tensor(
        2, 3, dtype=L.float32, device="cpu", low=3, high=1
    ),
    "make_nan": lambda L: L.testing.make_tensor(2, 3, dtype=L.float32, device="cpu", low=NAN),
    "make_range": lambda L: L.testing.make_tensor(2, dtype=L.uint8, device="cpu", low=-5, high=-1),
}


def _outcome(lib, case) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            case(lib)
        except Exception as e:  # any exception is the outcome compared
            return f"{type(e).__name__}: {e}"
    return "passed"


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_outcome_and_message(name):
    assert _outcome(mt, CASES[name]) == _outcome(torch, CASES[name])


def test_tensor_against_number_is_a_type_error_in_both():
    for lib in (mt, torch):
        with pytest.raises(TypeError, match="No comparison pair was able to handle"):
            lib.testing.assert_close(lib.tensor([1.0]), 1.0)


def test_names_match_torch():
    assert set(mt.testing.__all__) <= set(dir(torch.testing))


def test_make_tensor_ranges_match_torch():
    for dtype in ("float32", "float64", "int8", "int64", "uint8", "bool"):
        kw = {"dtype": getattr(mt, dtype), "device": "cpu"}
        mt.manual_seed(0)
        got = mt.testing.make_tensor(4000, **kw)
        torch.manual_seed(0)
        want = torch.testing.make_tensor(4000, dtype=getattr(torch, dtype), device="cpu")
        assert repr(got.dtype) == str(want.dtype)
        lo, hi = got.min().item(), got.max().item()
        tlo, thi = want.min().item(), want.max().item()
        if dtype.startswith("float"):
            assert -9 <= lo < -8.9 and 8.9 < hi < 9, dtype
            assert -9 <= tlo and thi < 9
        else:
            assert (lo, hi) == (tlo, thi), dtype
