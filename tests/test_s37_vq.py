"""Session 37 (helper vq): torch-free regression tests of the library fixes the vector-quantised
model programs of tests/reference/test_s37_vq_reference.py found: the in-place add_/sub_ fast
path given a complex alpha (torch's RuntimeError for a non-complex input, not a TypeError from
float()). torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

COMPLEX_ALPHA = "For non-complex input tensors, argument alpha must not be a complex number."


@pytest.mark.parametrize("op", ["add_", "sub_"])
@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
@pytest.mark.parametrize("other", ["tensor", "number"])
def test_inplace_complex_alpha_is_refused(op, dtype, other):
    x = mt.zeros(3, dtype=dtype)
    o = mt.ones(3, dtype=dtype) if other == "tensor" else 2.0
    with pytest.raises(RuntimeError) as info:
        getattr(x, op)(o, alpha=0.5j)
    assert str(info.value) == COMPLEX_ALPHA
    np.testing.assert_array_equal(x.numpy(), np.zeros(3), err_msg="self was written")
    assert x._version == 0


def test_inplace_real_alpha_still_fused():
    # the EMA update of a codebook: cluster_size.mul_(decay).add_(counts, alpha=1 - decay)
    g = mt.Generator().manual_seed(0)
    cs = mt.rand(5, generator=g, dtype=mt.float64)
    counts = mt.tensor([3.0, 0.0, 1.0, 2.0, 4.0], dtype=mt.float64)
    want = cs.numpy() * 0.8 + counts.numpy() * np.float64(0.2)
    cs.mul_(0.8).add_(counts, alpha=np.float64(0.2))
    np.testing.assert_allclose(cs.numpy(), want, rtol=1e-15, atol=0)
