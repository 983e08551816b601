"""Regressions found by rerunning every fuzzer in session 27 (torch 2.13's values as literals)."""

import pytest

import minitorch


def test_multi_dot_out_with_grad_names_mm():
    # torch's multi_dot writes its out= through mm: the refusal of autograd names mm, not view
    minitorch.manual_seed(0)
    msg = (
        "mm(): functions with out=... arguments don't support automatic differentiation, but one "
        "of the arguments requires grad."
    )
    for shapes in ([(2, 2), (2, 2)], [(3,), (3, 3), (3,)], [(2, 3), (3, 4), (4, 2)]):
        ts = [minitorch.randn(*s, requires_grad=True) for s in shapes]
        with pytest.raises(RuntimeError) as e:
            minitorch.linalg.multi_dot(ts, out=minitorch.empty(0))
        assert str(e.value) == msg


def test_multi_dot_out_dtype_checked_before_grad():
    a = minitorch.randn(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError) as e:
        minitorch.linalg.multi_dot([a, a], out=minitorch.empty(2, 2, dtype=minitorch.float64))
    assert str(e.value) == "multi_dot(): expected out tensor to have dtype float but got double"


def test_multi_dot_out_without_grad_writes_out():
    a = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = minitorch.empty(0)
    r = minitorch.linalg.multi_dot([a, a, a], out=out)
    assert r is out
    assert out.tolist() == [[37.0, 54.0], [81.0, 118.0]]
