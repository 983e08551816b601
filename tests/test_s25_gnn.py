"""Session 25 (graph neural networks in plain torch): torch's texts for index_add's errors, which
name the in-place op even when the out-of-place form or torch.index_add is called."""

from __future__ import annotations

import pytest

import minitorch as torch


@pytest.mark.parametrize(
    "call",
    [
        lambda z, i, s: z.index_add(0, i, s),
        lambda z, i, s: z.index_add_(0, i, s),
        lambda z, i, s: torch.index_add(z, 0, i, s),
    ],
)
def test_index_add_dtype_mismatch_names_inplace_op(call):
    z = torch.zeros(4, 3)
    src = torch.ones(2, 3, dtype=torch.float64)
    msg = "index_add_(): self (Float) and source (Double) must have the same scalar type"
    with pytest.raises(RuntimeError) as e:
        call(z, torch.tensor([0, 1]), src)
    assert str(e.value) == msg


def test_index_add_matrix_index_message():
    z = torch.zeros(4, 3)
    with pytest.raises(IndexError) as e:
        z.index_add(0, torch.tensor([[0, 1]], dtype=torch.int32), torch.ones(2, 3))
    assert str(e.value) == (
        "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Int and "
        "size: [1, 2]"
    )
    with pytest.raises(IndexError) as e:
        torch.zeros(()).index_add_(0, torch.tensor([[0]]), torch.ones(()))
    assert str(e.value) == (
        "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and "
        "size: [1, 1]"
    )
    # index_select keeps its shorter text
    with pytest.raises(IndexError, match=r"^index_select\(\): Index is supposed to be a vector$"):
        z.index_select(0, torch.tensor([[0, 1]]))
