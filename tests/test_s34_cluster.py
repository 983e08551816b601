"""Session 34 (helper cluster): torch-free regression tests of the library fixes the clustering
and mixture-model programs of tests/reference/test_s34_cluster_reference.py found: multinomial's
"number of categories cannot exceed 2^24" check (after the without-replacement check, before
any weight is read), and the broadcast errors of MultivariateNormal, Wishart, AffineTransform
and PowerTransform naming the shapes as torch.Size, as torch passes them to broadcast_shapes.
torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

D = mt.distributions


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


CATEGORIES = "number of categories cannot exceed 2^24"


@pytest.mark.parametrize(
    "shape, n, replacement, want",
    [
        ((2**24 + 1,), 1, False, CATEGORIES),
        ((2, 2**24 + 1), 3, True, CATEGORIES),
        ((2**24 + 1,), 2**24 + 2, True, CATEGORIES),
        # the without-replacement and sample-count checks come first
        ((2**24 + 1,), 2**24 + 2, False,
         "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
        ((2**24 + 1,), 0, False, "cannot sample n_sample <= 0 samples"),
    ],
)  # fmt: skip
def test_multinomial_category_limit(shape, n, replacement, want):
    probs = mt.ones(1).expand(*shape)  # no memory: nothing is read before the check
    assert _message(RuntimeError, lambda: mt.multinomial(probs, n, replacement)) == want


def _broadcast_message(length, wanted):
    return (
        f"Attempting to broadcast a dimension of length {length} at -1! Mismatching argument at "
        f"index 1 had torch.Size([{length}]); but expected shape should be broadcastable to "
        f"[{wanted}]"
    )


@pytest.mark.parametrize("kind", ["covariance_matrix", "scale_tril", "precision_matrix"])
def test_mvn_batch_mismatch_names_a_size(kind):
    eye = mt.eye(2, dtype=mt.float64).expand(2, 2, 2)
    loc = mt.zeros(3, 2, dtype=mt.float64)
    msg = _message(RuntimeError, lambda: D.MultivariateNormal(loc, **{kind: eye}))
    assert msg == _broadcast_message(3, 2)


def test_wishart_batch_mismatch_names_a_size():
    eye = mt.eye(2).expand(2, 2, 2)
    msg = _message(RuntimeError, lambda: D.Wishart(mt.tensor([3.0, 4.0, 5.0]), eye))
    assert msg == _broadcast_message(3, 2)


@pytest.mark.parametrize(
    "make, method",
    [
        (lambda: D.AffineTransform(mt.zeros(3), 1.0), "forward_shape"),
        (lambda: D.AffineTransform(mt.zeros(3), mt.ones(3)), "inverse_shape"),
        (lambda: D.PowerTransform(mt.ones(3)), "forward_shape"),
        (lambda: D.PowerTransform(mt.ones(3)), "inverse_shape"),
    ],
)
def test_transform_shape_mismatch_names_a_size(make, method):
    t = make()
    assert _message(RuntimeError, lambda: getattr(t, method)((2,))) == _broadcast_message(3, 2)
    assert tuple(getattr(t, method)((4, 1))) == (4, 3)
