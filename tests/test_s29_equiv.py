"""Session 29 (helper equiv): torch-free checks of what the equivariant / geometric programs in
tests/reference/test_s29_equiv_reference.py found: index_reduce refuses a source whose shape
differs from self's outside dim (torch 2.13's message, written as literals below), and the
scatter/index reductions used for graph pooling keep torch's values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

_SHAPE_MSG = (
    "source tensor shape must match self tensor shape, excluding the specified dimension. "
    "Got self.shape = {} source.shape = {}"
)


@pytest.fixture(autouse=True)
def _quiet_beta_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize(
    "self_shape, dim, n, src_shape",
    [
        ((3, 4), 0, 6, (6, 5)),
        ((3, 4), 0, 6, (6, 3)),  # a smaller source is refused too
        ((3, 4, 2), 0, 2, (2, 4)),
        ((3, 4), 1, 2, (2, 2)),
        ((3, 4), 0, 0, (0, 5)),
        ((3,), 0, 1, (1, 1)),
        ((), 0, 1, (1,)),
        ((1,), 0, 1, ()),
    ],
)
@pytest.mark.parametrize("inplace", [False, True])
def test_index_reduce_refuses_a_source_of_another_shape(self_shape, dim, n, src_shape, inplace):
    x = mt.zeros(self_shape)
    src = mt.ones(src_shape)
    index = mt.zeros(n, dtype=mt.int64)
    fn = x.index_reduce_ if inplace else x.index_reduce
    want = _SHAPE_MSG.format(list(self_shape), list(src_shape))
    with pytest.raises(RuntimeError) as info:
        fn(dim, index, src, "mean")
    assert str(info.value) == want


def test_index_reduce_shape_check_comes_after_dtype_and_count_before_bounds():
    x = mt.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"^index_reduce_\(\): self \(Float\) and source"):
        x.index_reduce(0, mt.tensor([0, 1]), mt.ones(2, 5, dtype=mt.float64), "mean")
    with pytest.raises(RuntimeError, match=r"^index_reduce_\(\): Number of indices \(3\)"):
        x.index_reduce(0, mt.tensor([0, 1, 2]), mt.ones(2, 5), "mean")
    with pytest.raises(RuntimeError, match="^source tensor shape must match"):
        x.index_reduce(0, mt.tensor([0, 9]), mt.ones(2, 5), "mean")


def test_graph_pooling_by_index_reduce_and_scatter_reduce():
    h = mt.tensor([[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0], [2.0, 2.0]], dtype=mt.float64)
    batch = mt.tensor([0, 0, 1, 1])
    mean = mt.zeros(2, 2, dtype=mt.float64).index_reduce(0, batch, h, "mean", include_self=False)
    np.testing.assert_array_equal(mean.numpy(), [[2.0, -0.75], [0.5, 3.0]])
    mx = mt.zeros(2, 2, dtype=mt.float64).scatter_reduce(
        0, batch[:, None].expand(-1, 2), h, "amax", include_self=False
    )
    np.testing.assert_array_equal(mx.numpy(), [[3.0, 0.5], [2.0, 4.0]])
    # rows of equal shape outside dim still reduce (a 0-d self with a 0-d source too)
    r = mt.tensor(2.0).index_reduce(0, mt.tensor([0]), mt.tensor(3.0), "prod")
    assert r.item() == 6.0


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda x: mt.rot90(x, 1.5), "rot90(): argument 'k' (position 2) must be int, not float"),
        (lambda x: x.rot90(1.5), "rot90(): argument 'k' (position 1) must be int, not float"),
        (lambda x: mt.rot90(x, k=1.5), "rot90(): argument 'k' must be int, not float"),
        (lambda x: mt.rot90(x, True), "rot90(): argument 'k' (position 2) must be int, not bool"),
        (
            lambda x: mt.rot90(x, 1, 0),
            "rot90(): argument 'dims' (position 3) must be tuple of ints, not int",
        ),
        (
            lambda x: x.rot90(1, 0),
            "rot90(): argument 'dims' (position 2) must be tuple of ints, not int",
        ),
    ],
)
def test_rot90_argument_errors_name_the_position(call, want):
    with pytest.raises(TypeError) as info:
        call(mt.ones(2, 2))
    assert str(info.value) == want


def test_rot90_takes_a_list_of_dims_and_int_like_k():
    x = mt.arange(6.0).view(2, 3)
    assert mt.rot90(x, 1, [1, 0]).tolist() == [[3.0, 0.0], [4.0, 1.0], [5.0, 2.0]]
    assert x.rot90(mt.tensor(-1)).tolist() == [[3.0, 0.0], [4.0, 1.0], [5.0, 2.0]]
