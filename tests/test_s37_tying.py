"""Session 37 (helper tying): torch-free regression tests of the library fix the parameter
sharing and tying programs of tests/reference/test_s37_tying_reference.py found: SGD with
momentum (the for-loop and the fused half-precision paths) reads every momentum buffer before
its updates (torch's _init_group), so a parameter
listed twice in a group (torch warns and keeps it) starts its first step without a buffer at
both places, and later steps update its one buffer twice in place. The expected numbers are
torch 2.13's, written here as literals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt


def _sgd_duplicate_run(dtype=mt.float64, **kw):
    a = mt.nn.Parameter(mt.tensor([1.0, -2.0, 0.5], dtype=dtype))
    b = mt.nn.Parameter(mt.tensor([0.25, 3.0], dtype=dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = mt.optim.SGD([a, b, a], lr=0.1, momentum=0.5, **kw)
    for step in range(3):
        opt.zero_grad()
        ((a * a).sum() * (step + 1) + (b * b).sum()).backward()
        opt.step()
    return a, b, opt


def test_sgd_duplicate_parameter_buffers_read_before_updates():
    a, b, opt = _sgd_duplicate_run()
    # torch: step 1 gives a two fresh buffers (the later one kept), steps 2 and 3 update the
    # one buffer twice in place
    np.testing.assert_allclose(
        a.detach().numpy(), [-0.2325, 0.465, -0.11625], rtol=1e-12, err_msg="a"
    )
    np.testing.assert_allclose(b.detach().numpy(), [0.0755, 0.906], rtol=1e-12, err_msg="b")
    buf = opt.state[a]["momentum_buffer"]
    np.testing.assert_allclose(buf.numpy(), [-0.325, 0.65, -0.1625], rtol=1e-12, err_msg="buf")
    assert len(opt.state) == 2


@pytest.mark.parametrize(
    "dtype, want_a, want_buf",
    [
        (
            mt.float16,
            [-0.2322998046875, 0.464599609375, -0.11614990234375],
            [-0.326171875, 0.65234375, -0.1630859375],
        ),
        (
            mt.bfloat16,
            [-0.234375, 0.46875, -0.1171875],
            [-0.31640625, 0.6328125, -0.158203125],
        ),
    ],
)
def test_sgd_fused_half_duplicate_parameter(dtype, want_a, want_buf):
    # the fused half-precision path reads the same buffer snapshot (torch's fused kernel)
    a, _, opt = _sgd_duplicate_run(dtype, fused=True)
    assert a.dtype == dtype
    np.testing.assert_array_equal(a.detach().float().numpy(), want_a, err_msg="a")
    buf = opt.state[a]["momentum_buffer"]
    assert buf.dtype == dtype
    np.testing.assert_array_equal(buf.float().numpy(), want_buf, err_msg="buf")


def test_sgd_duplicate_parameter_state_dict_indices():
    a, _, opt = _sgd_duplicate_run(nesterov=True)
    sd = opt.state_dict()
    # torch numbers a duplicate by its last place
    assert sd["param_groups"][0]["params"] == [2, 1, 2]
    assert sorted(sd["state"]) == [1, 2]
    assert sd["state"][2]["momentum_buffer"] is opt.state[a]["momentum_buffer"]


@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd_single_listing_unchanged(nesterov):
    # one listing of each parameter: the buffers still start as the first gradient
    p = mt.nn.Parameter(mt.tensor([1.0, 2.0], dtype=mt.float64))
    opt = mt.optim.SGD([p], lr=0.1, momentum=0.9, nesterov=nesterov)
    for _ in range(2):
        p.grad = mt.tensor([1.0, -1.0], dtype=mt.float64)
        opt.step()
    want = [0.539, 2.461] if nesterov else [0.71, 2.29]
    np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-12, err_msg="p")
