"""Session 25, classic ML from scratch: the library fixes its programs needed, with torch's values
as literals (torch 2.13, CPU): torch's gamma sampler on the CPU stream (Gamma/Beta/Dirichlet
samples, Thompson sampling), svd_lowrank / pca_lowrank drawing torch's test matrix, and
searchsorted's warnings for non-contiguous inputs."""

from __future__ import annotations

import math
import warnings

import numpy as np

import minitorch as mt

# --- gamma draws (NOTE [ torch's gamma draws ]) ---


def test_standard_gamma_draws_torch_numbers_float32_with_edges():
    mt.manual_seed(22)
    a = mt.tensor([0.3, 1.0, 2.5, 0.0, -0.5, math.nan, 40.0])
    got = mt._standard_gamma(a)
    want = [6.248283898457885e-05, 0.7376406788825989, 2.679610013961792, 1.1754943508222875e-38,
            0.4311051070690155, 1.1754943508222875e-38, 37.60260772705078]  # fmt: skip
    assert got.dtype == mt.float32
    np.testing.assert_array_equal(got.numpy(), np.array(want, dtype=np.float32))
    g64 = mt._standard_gamma(mt.tensor([0.3, 1.0, 2.5], dtype=mt.float64))
    want64 = [0.16901225321459373, 0.476370160681847, 0.44547272465817545]
    np.testing.assert_allclose(g64.numpy(), want64, rtol=1e-15, atol=0)
    # the stream is left where torch's is
    np.testing.assert_array_equal(
        mt.rand(2).numpy(), np.array([0.11897170543670654, 0.30358755588531494], np.float32)
    )


def test_standard_gamma_uses_the_cached_normal_and_a_generator():
    mt.manual_seed(5)
    mt.randn(3, dtype=mt.float64)  # three serial normals: the fourth is cached
    g = mt._standard_gamma(mt.full((2,), 2.0, dtype=mt.float64))
    np.testing.assert_allclose(g.numpy(), [2.685499609420058, 2.8956633469827513], rtol=1e-15)
    gen = mt.Generator().manual_seed(3)
    g = mt._standard_gamma(mt.full((3,), 0.7), generator=gen)
    want = np.array([0.9096663594245911, 0.590304434299469, 0.3947388827800751], np.float32)
    np.testing.assert_array_equal(g.numpy(), want)


def test_dirichlet_and_beta_samples_are_torchs():
    mt.manual_seed(5)
    mt.randn(3, dtype=mt.float64)
    mt._standard_gamma(mt.full((2,), 2.0, dtype=mt.float64))
    d = mt._sample_dirichlet(mt.tensor([[0.5, 1.0, 2.0], [0.1, 0.1, 0.1]]))
    want = [[0.0027289811987429857, 0.10093529522418976, 0.8963357210159302],
            [0.9998868107795715, 8.954518307291437e-06, 0.000104230668512173]]  # fmt: skip
    np.testing.assert_allclose(d.numpy(), np.array(want, np.float32), rtol=1e-6)
    b = mt.distributions.Beta(mt.tensor([0.5, 2.0]), mt.tensor([0.5, 3.0])).sample()
    np.testing.assert_allclose(b.numpy(), [0.018346542492508888, 0.4370006322860718], rtol=1e-6)
    np.testing.assert_array_equal(
        mt.rand(2).numpy(), np.array([0.8708713054656982, 0.17600136995315552], np.float32)
    )


def test_thompson_sampling_bandit_picks_torchs_arms():
    # Beta(a, b) draws decide the arm; a Bernoulli reward updates the counts
    mt.manual_seed(22)
    true_p = mt.tensor([0.2, 0.5, 0.7])
    a, b = mt.ones(3), mt.ones(3)
    picks = []
    for _ in range(12):
        k = mt.distributions.Beta(a, b).sample().argmax()
        r = mt.bernoulli(true_p[k])
        a[k] += r
        b[k] += 1 - r
        picks.append(k.item())
    assert picks == [2, 2, 2, 2, 2, 2, 2, 2, 0, 1, 0, 2]
    assert a.tolist() == [2.0, 1.0, 7.0] and b.tolist() == [2.0, 2.0, 4.0]


# --- randomized low-rank SVD / PCA ---


def _pca_data():
    mt.manual_seed(6)
    x = mt.randn(30, 5, dtype=mt.float64) @ mt.randn(5, 5, dtype=mt.float64)
    mt.manual_seed(1)
    return x


def test_pca_lowrank_draws_torchs_test_matrix():
    # q below the rank: the result depends on the draws (n x q for a tall matrix, as torch)
    U, S, V = mt.pca_lowrank(_pca_data(), q=3)
    np.testing.assert_allclose(
        S.numpy(), [21.033818222412513, 15.166863807573424, 12.36563125686754], rtol=1e-12
    )
    # singular vectors up to sign (LAPACK's sign choices are its own)
    np.testing.assert_allclose(
        np.abs(U.numpy()[0]), [0.10020272733278222, 0.17167077507947043, 0.3268496811351749],
        rtol=1e-10,
    )  # fmt: skip
    np.testing.assert_allclose(
        np.abs(V.numpy()[0]), [0.7355992906531008, 0.2742649010790187, 0.46112927314045976],
        rtol=1e-10,
    )  # fmt: skip


def test_svd_lowrank_of_a_wide_matrix_transposes_first():
    U, S, V = mt.svd_lowrank(_pca_data().T, q=2)
    assert U.shape == (5, 2) and V.shape == (30, 2)
    np.testing.assert_allclose(S.numpy(), [21.09048288391837, 12.481304152719346], rtol=1e-12)
    np.testing.assert_allclose(
        np.abs(U.numpy()[0]), [0.7353131553878198, 0.43101416156994116], rtol=1e-10
    )


# --- searchsorted / bucketize warnings ---

_MSG = (
    "torch.searchsorted(): {w} tensor is non-contiguous, this will lower the performance due to "
    "extra data copy when converting non-contiguous tensor to contiguous, please use contiguous "
    "{w} tensor if possible. This message will only appear once per program."
)


def test_searchsorted_warns_once_for_non_contiguous_inputs(fresh_once):
    x = mt.arange(12.0).view(6, 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mt.searchsorted(x[:, 0].contiguous(), 3.0)  # contiguous: nothing
        mt.searchsorted(x[:0, 0], x[:0, 1])  # empty: contiguous
        out = mt.bucketize(x[:, 1], x[:, 0])  # input, then boundaries
        mt.searchsorted(x[:, 0], x[:, 1])  # once per process
    msgs = [str(m.message) for m in w]
    assert msgs == [_MSG.format(w="input value"), _MSG.format(w="boundary")]
    assert all(m.category is UserWarning for m in w)
    assert out.tolist() == [1, 2, 3, 4, 5, 6]
