"""Session 34 (helper nnutils): torch-free regression tests of the library fix the
torch.nn.utils programs of tests/reference/test_s34_nnutils_reference.py found:
clip_grads_with_norm_ scales the gradients through _foreach_mul_ on its default and foreach=True
paths, so a total norm that is no 0-d tensor raises torch's foreach error, while foreach=False
multiplies tensor by tensor (broadcasting, or torch's in-place broadcast error). torch's
messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

U = mt.nn.utils


def _net():
    gen = mt.Generator().manual_seed(0)
    net = mt.nn.Sequential(mt.nn.Linear(3, 4), mt.nn.Tanh(), mt.nn.Linear(4, 3))
    net(mt.randn(5, 3, generator=gen)).pow(2).sum().backward()
    return net


@pytest.mark.parametrize("foreach", [None, True])
@pytest.mark.parametrize(
    "shape, ndim, numel", [((1,), 1, 1), ((1, 1), 2, 1), ((3, 3), 2, 9), ((2,), 1, 2)]
)
def test_clip_grads_with_norm_foreach_refuses_a_total_norm_that_is_not_0d(
    foreach, shape, ndim, numel
):
    net = _net()
    before = [p.grad.clone() for p in net.parameters()]
    with pytest.raises(RuntimeError) as info:
        U.clip_grads_with_norm_(net.parameters(), 1.0, mt.full(shape, 2.0), foreach=foreach)
    assert str(info.value) == (
        f"scalar tensor expected to be 0 dim but it has {ndim} dimensions and {numel} elements."
    )
    for b, p in zip(before, net.parameters(), strict=True):
        np.testing.assert_array_equal(p.grad.numpy(), b.numpy())


def test_clip_grads_with_norm_per_tensor_path_broadcasts_a_one_element_norm():
    net = _net()
    want = [p.grad.numpy() * (1.0 / (2.0 + 1e-6)) for p in net.parameters()]
    U.clip_grads_with_norm_(net.parameters(), 1.0, mt.tensor([2.0]), foreach=False)
    for w, p in zip(want, net.parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), w, rtol=1e-6, err_msg="foreach=False")
    with pytest.raises(RuntimeError) as info:
        U.clip_grads_with_norm_(net.parameters(), 1.0, mt.ones(1, 1), foreach=False)
    assert str(info.value) == "output with shape [4] doesn't match the broadcast shape [1, 4]"


@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_scales_all_paths_alike(foreach):
    net = _net()
    grads = [p.grad.numpy().astype(np.float64) for p in net.parameters()]
    total = np.sqrt(sum((g**2).sum() for g in grads))
    tn = U.clip_grad_norm_(net.parameters(), 0.5, foreach=foreach)
    np.testing.assert_allclose(tn.item(), total, rtol=1e-6)
    coef = min(1.0, 0.5 / (total + 1e-6))
    for g, p in zip(grads, net.parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), g * coef, rtol=1e-5, err_msg=str(foreach))
