"""New memory is row-major, as torch's: the results of reductions over a dim, cat/stack,
cumulative ops, roll and masked_fill of a permuted input are contiguous, so `.view()` works on
them (a DataLoader batch stacked from `from_numpy(img).permute(2, 0, 1)` samples, then
`x.view(B, -1)`). NumPy keeps its inputs' layout there, and `.view()` raised."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F

A = mt.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)  # (4, 2, 3), not contiguous
B = mt.arange(12.0).reshape(4, 3).t()  # (3, 4), not contiguous

CASES = {
    "sum": lambda: A.sum(-1),
    "mean_keepdim": lambda: A.mean(-1, keepdim=True),
    "amax": lambda: A.amax(-1),
    "amin": lambda: A.amin(0),
    "prod": lambda: A.prod(-1),
    "var": lambda: A.var(-1),
    "norm": lambda: A.norm(dim=-1),
    "stack": lambda: mt.stack([B, B]),
    "cat": lambda: mt.cat([B, B]),
    "cat_dim1": lambda: mt.cat([B, B], 1),
    "hstack": lambda: mt.hstack([B, B]),
    "cumsum": lambda: B.cumsum(0),
    "cumprod": lambda: B.cumprod(1),
    "logcumsumexp": lambda: B.logcumsumexp(0),
    "roll": lambda: B.roll(1, 0),
    "masked_fill": lambda: B.masked_fill(B > 3, 0.0),
    "pad": lambda: F.pad(B, (1, 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_new_results_of_permuted_inputs_are_row_major(name):
    r = CASES[name]()
    assert r.is_contiguous()
    assert r.view(-1).tolist() == np.asarray(r.tolist()).reshape(-1).tolist()


def test_a_collated_batch_of_permuted_images_can_be_viewed():
    from minitorch.utils.data import DataLoader

    imgs = np.arange(2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3)
    data = [mt.from_numpy(img).permute(2, 0, 1) for img in imgs]
    (batch,) = list(DataLoader(data, batch_size=2))
    assert batch.view(2, -1).shape == (2, 60)
    np.testing.assert_array_equal(
        batch.view(2, -1).numpy(), imgs.transpose(0, 3, 1, 2).reshape(2, -1)
    )


EXPANDED_CASTS = {
    "float": lambda x: x.float(),
    "half": lambda x: x.half(),
    "to_copy": lambda x: x.to(mt.float64, copy=True),
    "bool": lambda x: x.bool(),
    "exp_of_int": mt.exp,  # an int input is cast to float first
    "true_div_of_int": lambda x: x / 2,
    "nan_to_num": lambda x: mt.nan_to_num(x.double()),
}


@pytest.mark.parametrize("name", list(EXPANDED_CASTS))
def test_casts_of_expanded_tensors_are_row_major(name):
    # position ids broadcast over a batch, then cast and flattened; NumPy's order "K" made the
    # broadcast dim the fastest-varying one (strides (1, 2)) and .view(-1) raised
    pos = mt.arange(4).expand(3, 4)
    r = EXPANDED_CASTS[name](pos)
    assert r.is_contiguous() and r.stride() == (4, 1)
    expected = EXPANDED_CASTS[name](pos.contiguous())
    np.testing.assert_array_equal(r.view(-1).numpy(), expected.reshape(-1).numpy())


def test_casts_keep_a_transposed_layout():
    # only broadcast dims change the rule: a transposed input's cast keeps its layout, as torch's
    x = mt.arange(6).reshape(2, 3).t()
    assert x.float().stride() == (1, 3)
