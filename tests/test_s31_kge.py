"""Session 31 (helper kge): torch-free regression tests of the library fixes the knowledge-graph
embedding programs (tests/reference/test_s31_kge_reference.py) found: embedding_renorm_'s
errors (an index out of range named as torch's row-by-row select names it, negative indices
wrapped, refusal of a leaf that requires grad) and F.embedding's max_norm path. The expected
values and messages are torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


@pytest.mark.parametrize(
    "idx, bad",
    [([7], 7), ([7, 9], 7), ([9, 7], 7), ([-6], -6), ([2, -7, 8], -7), ([[1, 6]], 6)],
)
def test_embedding_max_norm_out_of_range_names_the_smallest_bad_index(idx, bad):
    # torch renormalises first, selecting the distinct indices' rows in ascending order
    with pytest.raises(IndexError) as e:
        F.embedding(mt.tensor(idx), mt.ones(5, 3), max_norm=1.0)
    assert str(e.value) == (
        f"select(): index {bad} out of range for tensor of size [5, 3] at dimension 0"
    )
    with pytest.raises(IndexError) as e:
        mt.embedding_renorm_(mt.ones(5, 3), mt.tensor(idx), 1.0, 2.0)
    assert str(e.value).startswith(f"select(): index {bad} out of range")


def test_embedding_max_norm_negative_index_keeps_the_lookup_message():
    with pytest.raises(IndexError, match=r"^index out of range in self$"):
        F.embedding(mt.tensor([-1]), mt.ones(5, 3), max_norm=1.0)
    with pytest.raises(IndexError, match=r"^index out of range in self$"):
        F.embedding(mt.tensor([7]), mt.ones(5, 3))  # no max_norm: the lookup's message


def test_embedding_renorm_wraps_negative_indices():
    w = mt.ones(5, 3) * 2
    mt.embedding_renorm_(w, mt.tensor([-1]), 1.0, 2.0)
    want = np.full((5, 3), 2.0, dtype=np.float32)
    want[4] = 0.5773502  # 2 * 1 / (sqrt(12) + 1e-7)
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-6)


def test_embedding_renorm_refuses_a_leaf_that_requires_grad():
    w = mt.randn(4, 3, dtype=mt.float64, requires_grad=True)
    with pytest.raises(RuntimeError) as e:
        mt.embedding_renorm_(w, mt.tensor([0]), 1.0, 2.0)
    assert str(e.value) == (
        "a leaf Variable that requires grad is being used in an in-place operation."
    )
    with pytest.raises(RuntimeError) as e:
        mt.embedding_renorm_(w[1:], mt.tensor([0]), 1.0, 2.0)
    assert str(e.value) == (
        "a view of a leaf Variable that requires grad is being used in an in-place operation."
    )
    with mt.no_grad():
        mt.embedding_renorm_(w, mt.tensor([0]), 0.1, 2.0)
    np.testing.assert_allclose(w[0].norm().item(), 0.1, rtol=1e-6)


def test_functional_embedding_max_norm_on_a_parameter_still_works():
    # F.embedding renormalises under no_grad, as torch's functional does
    w = mt.tensor([[3.0, 4.0], [0.3, 0.4]], requires_grad=True)
    out = F.embedding(mt.tensor([0, 1, 0]), w, max_norm=1.0)
    out.sum().backward()
    np.testing.assert_allclose(w.detach().numpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), [[2.0, 2.0], [1.0, 1.0]])
    assert w._version == 1
    bag = F.embedding_bag(mt.tensor([[0, 1]]), mt.tensor([[6.0, 8.0], [1.0, 0.0]]), max_norm=2.0)
    np.testing.assert_allclose(bag.numpy(), [[1.1, 0.8]], rtol=1e-6)


def test_embedding_renorm_index_dtypes():
    w = mt.ones(5, 3) * 2
    mt.embedding_renorm_(w, mt.tensor([1, 3], dtype=mt.int32), 1.0, 2.0)
    np.testing.assert_allclose(w.norm(dim=1).numpy(), [12**0.5, 1, 12**0.5, 1, 12**0.5], rtol=1e-6)
    out = F.embedding(mt.tensor([[0, 0]], dtype=mt.int32), w, max_norm=1.5, norm_type=float("inf"))
    np.testing.assert_allclose(out.numpy(), np.full((1, 2, 3), 1.5), rtol=1e-6)
    for ix, name in (
        (mt.tensor([1.0]), "torch.FloatTensor"),
        (mt.tensor([True]), "CPUBoolType"),
        (mt.tensor([1], dtype=mt.int16), "torch.ShortTensor"),
    ):
        with pytest.raises(RuntimeError) as e:
            mt.embedding_renorm_(w, ix, 1.0, 2.0)
        assert str(e.value) == (
            "Expected tensor for argument #2 'indices' to have one of the following scalar types: "
            f"Long, Int; but got {name} instead (while checking arguments for embedding_renorm_)"
        )


def test_max_norm_paths_on_every_device(device):
    # the renorm of int32 / negative indices and the leaf refusal read nothing back to the host
    w = (mt.ones(5, 3) * 2).to(device)
    mt.embedding_renorm_(w, mt.tensor([-1, 1], dtype=mt.int32).to(device), 1.0, 2.0)
    np.testing.assert_allclose(w.cpu().norm(dim=1).numpy(), [12**0.5, 1, 12**0.5, 12**0.5, 1],
                               rtol=1e-6)  # fmt: skip
    p = mt.nn.Parameter(mt.ones(5, 3).to(device))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        mt.embedding_renorm_(p, mt.tensor([0]).to(device), 1.0, 2.0)
    e = mt.nn.Embedding(5, 3, max_norm=0.5).to(device)
    e(mt.tensor([[0, 4]], dtype=mt.int32).to(device)).sum().backward()
    np.testing.assert_allclose(e.weight.detach().cpu()[[0, 4]].norm(dim=1).numpy(), [0.5, 0.5],
                               rtol=1e-5)  # fmt: skip


def test_scale_grad_by_freq_double_backward_is_torchs():
    # torch's embedding double backward ignores scale_grad_by_freq: the second derivative
    # through the weight is exact (finite differences agree), the one through the first
    # gradient's other input u is not divided by the count (u's exact gradient is half this)
    w = mt.tensor([[1.0, -0.5], [0.25, 2.0], [-1.5, 0.75]], dtype=mt.float64, requires_grad=True)
    u = mt.tensor([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]], dtype=mt.float64, requires_grad=True)
    idx = mt.tensor([0, 2, 0])
    out = F.embedding(idx, w, scale_grad_by_freq=True, padding_idx=2)
    (gw,) = mt.autograd.grad((out * u).pow(2).sum(), w, create_graph=True)
    np.testing.assert_allclose(gw.detach().numpy(), [[1.25, -1.0], [0, 0], [0, 0]])
    gw2, gu = mt.autograd.grad(gw.pow(2).sum(), (w, u))
    np.testing.assert_allclose(gw2.numpy(), [[3.125, -4.0], [0, 0], [0, 0]])
    np.testing.assert_allclose(gu.numpy(), [[5.0, -4.0], [0, 0], [10.0, 4.0]])
