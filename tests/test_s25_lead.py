"""Session 25: fixes made by the lead while reviewing the helpers' work (torch 2.13's behaviour
written in as literals)."""

import warnings

import pytest

import minitorch as mt


@pytest.mark.parametrize(
    "shape, reduce, include_self, kernel",
    [
        ((3, 2), "prod", True, None),
        ((3, 2), "amax", True, None),
        ((3, 2), "amin", True, None),
        ((3, 2), "mean", True, "div_floor_cpu"),
        ((3, 2), "prod", False, "index_reduce_func_exclude_input_init"),
        ((3,), "prod", True, "index_func_"),
        ((3,), "amax", False, "index_reduce_func_exclude_input_init"),
        ((), "mean", True, "index_func_"),
    ],
)
def test_index_reduce_of_bool_has_torchs_kernels(shape, reduce, include_self, kernel):
    x = mt.ones(shape, dtype=mt.bool)
    rows = [True, False, True, True]
    if len(shape) == 2:
        src = mt.tensor([[r, r] for r in rows])
    else:
        src = mt.tensor(rows if shape else True)
    index = mt.tensor([0, 1, 0, 2] if shape else [0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kernel is not None:
            with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for'):
                x.index_reduce(0, index, src, reduce, include_self=include_self)
            return
        out = x.index_reduce(0, index, src, reduce, include_self=include_self)
    want = {"prod": [[True, True], [False, False], [True, True]]}.get(
        reduce, [[True, True], [True, True], [True, True]]
    )
    if reduce == "amin":
        want = [[True, True], [False, False], [True, True]]
    assert out.dtype is mt.bool and out.tolist() == want
