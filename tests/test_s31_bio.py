"""Session 31 (helper bio): torch-free checks of the building blocks the protein and sequence
programs in tests/reference/test_s31_bio_reference.py lean on (distogram bins by bucketize,
one-hot encodings, frames by linalg.cross, torsions by atan2, Kabsch RMSD by svd and det, k-mer
counts by unique/bincount, top-L ranking by topk, packed sequences, VonMises torsion densities).
The session found no library difference in this domain; the values and messages below are
torch 2.13's, so these keep the behaviour pinned where torch is not installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


def test_distogram_bins_by_bucketize_and_searchsorted():
    edges = mt.tensor([1.0, 2.0, 3.0])
    d = mt.tensor([0.5, 1.0, 2.0, 3.0, 3.5])
    assert mt.bucketize(d, edges).tolist() == [0, 0, 1, 2, 3]
    assert mt.bucketize(d, edges, right=True).tolist() == [0, 1, 2, 3, 3]
    assert mt.searchsorted(edges, d, side="right").tolist() == [0, 1, 2, 3, 3]


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: F.one_hot(mt.tensor([0, 5]), 3), RuntimeError,
         "Class values must be smaller than num_classes."),
        (lambda: F.one_hot(mt.tensor([0.0, 1.0]), 3), RuntimeError,
         "one_hot is only applicable to index tensor of type LongTensor."),
        (lambda: F.one_hot(mt.tensor([0, -1]), 3), RuntimeError,
         "Class values must be non-negative."),
        (lambda: mt.linalg.cross(mt.ones(4, 2), mt.ones(4, 2)), RuntimeError,
         "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2"),
        (lambda: mt.linalg.cross(mt.ones(4, 3), mt.ones(3, 3)), RuntimeError,
         "The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
         "dimension 0"),
        (lambda: mt.cdist(mt.ones(4, 3), mt.ones(4, 2)), RuntimeError,
         "X1 and X2 must have the same number of columns. X1: 3 X2: 2"),
        (lambda: mt.bincount(mt.tensor([1, -1])), RuntimeError,
         "bincount only supports 1-d non-negative integral inputs."),
        (lambda: mt.nn.Embedding(5, 3, padding_idx=5), AssertionError,
         "Padding_idx must be within num_embeddings"),
        (lambda: mt.linalg.det(mt.ones(4, 3)), RuntimeError,
         "linalg.det: A must be batches of square matrices, but they are 4 by 3 matrices"),
    ],
)  # fmt: skip
def test_sequence_and_geometry_errors(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == msg


def test_torsions_by_atan2_keep_signed_zeros():
    out = mt.atan2(mt.tensor([0.0, -0.0, 0.0, -0.0]), mt.tensor([-1.0, -1.0, 1.0, 1.0]))
    np.testing.assert_array_equal(out.numpy(), np.float32([np.pi, -np.pi, 0.0, -0.0]))
    assert np.signbit(out.numpy()[3])
    p = mt.tensor([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], dtype=F64)
    b0, b1, b2 = p[0] - p[1], p[2] - p[1], p[3] - p[2]
    b1n = b1 / b1.norm()
    v = b0 - (b0 @ b1n) * b1n
    w = b2 - (b2 @ b1n) * b1n
    _close(mt.atan2(mt.linalg.cross(b1n, v) @ w, v @ w), 1.5707963267948966)


def test_kabsch_rmsd_with_reflection_fix():
    x = mt.tensor([[0.0, 0, 0], [1, 0, 0], [0, 2, 0], [0, 0, 3]], dtype=F64)
    y = mt.tensor([[1.1, 2.0, 3.0], [1.0, 3.0, 3.0], [-1.0, 2.0, 3.0], [1.0, 2.0, 6.0]], dtype=F64)
    P, Q = x - x.mean(0), y - y.mean(0)
    U, S, Vh = mt.linalg.svd(P.T @ Q)
    d = mt.sign(mt.linalg.det(Vh.T @ U.T))
    R = Vh.T @ mt.diag(mt.cat([mt.ones(2, dtype=F64), d[None]])) @ U.T
    _close(S, [7.305030363917891, 2.7800639214401888, 0.4653235164315764])
    _close(mt.sqrt(((P @ R.T - Q) ** 2).sum(-1).mean()), 0.040817877274203974)


def test_kmer_counts_by_unique_and_bincount():
    u, inv, cnt = mt.unique(mt.tensor([27, 6, 27, 45, 6, 27]), return_inverse=True,
                            return_counts=True)  # fmt: skip
    assert (u.tolist(), inv.tolist(), cnt.tolist()) == ([6, 27, 45], [1, 0, 1, 2, 0, 1], [2, 3, 1])
    w = mt.tensor([0.5, 1.0, 2.0, 4.0], dtype=F64)
    assert mt.bincount(mt.tensor([0, 2, 2, 3]), weights=w, minlength=5).tolist() == [
        0.5, 0.0, 3.0, 4.0, 0.0,
    ]  # fmt: skip


def test_contact_ranking_ties_and_fully_ignored_targets():
    s = mt.tensor([1.0, 3.0, 3.0, 2.0, 3.0])
    assert mt.topk(s, 2).indices.tolist() == [2, 4]
    assert mt.sort(s, descending=True).indices.tolist() == [1, 2, 4, 3, 0]
    assert np.isnan(F.cross_entropy(mt.zeros(2, 3), mt.tensor([-100, -100])).item())


def test_packed_sequence_repr_and_uint8_index_warning():
    seqs = [mt.tensor([1, 5, 2, 7]), mt.tensor([3, 3]), mt.tensor([9, 0, 4])]
    assert repr(mt.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)) == (
        "PackedSequence(data=tensor([1, 9, 3, 5, 0, 3, 2, 4, 7]), batch_sizes=tensor([3, 3, 2, "
        "1]), sorted_indices=tensor([0, 2, 1]), unsorted_indices=tensor([0, 2, 1]))"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = mt.arange(3)[mt.tensor([1, 0, 1], dtype=mt.uint8)]
    assert out.tolist() == [0, 2]
    assert [str(w.message) for w in caught] == [
        "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."
    ]


def test_vonmises_torsion_density():
    loc, kappa = mt.tensor([0.5, -1.0], dtype=F64), mt.tensor([2.0, 0.3], dtype=F64)
    vm = mt.distributions.VonMises(loc, kappa)
    _close(vm.log_prob(mt.tensor([0.1, 3.0], dtype=F64)), [-0.8197486220623477, -2.056344829592936])
    _close(vm.variance, [0.3022253424022666, 0.8516625718530736])


def test_jacrev_of_cdist_matches_the_reverse_jacobian():
    # torch 2.13's jacrev gives every output row the first row's Jacobian here (its batching of
    # cdist's backward); autograd.functional.jacobian gives the values below, and so must jacrev
    x = mt.tensor([[0.0, 0, 0], [1, 0, 0], [0, 2, 0]], dtype=F64)
    want = [
        [[0.5773502691896258, 0.1297565119969215, 1.2844570503761732],
         [0.0, -0.7071067811865475, -0.7071067811865475],
         [-0.5773502691896258, 0.5773502691896258, -0.5773502691896258]],
        [[-0.8164965809277261, -0.4082482904638631, -0.4082482904638631],
         [1.6329931618554525, 0.0, 0.8164965809277261],
         [-0.8164965809277261, 0.4082482904638631, -0.4082482904638631]],
        [[-0.30151134457776363, -0.9045340337332909, -0.30151134457776363],
         [0.0, -0.9486832980505138, -0.31622776601683794],
         [0.30151134457776363, 1.8532173317838048, 0.6177391105946016]],
    ]  # fmt: skip
    f = lambda a: mt.cdist(a, a + 1).sum(0)  # noqa: E731
    np.testing.assert_allclose(mt.func.jacrev(f)(x).numpy(), want, atol=1e-12)
    np.testing.assert_allclose(mt.autograd.functional.jacobian(f, x).numpy(), want, atol=1e-12)
