"""The no-grad fast paths of session 45 (cross_entropy, nll_loss, layer_norm, batch_norm, gelu,
softmax of few rows) against torch: the values torch gives, within float rounding."""

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _pair(shape, seed, scale=3.0):
    a = np.random.default_rng(seed).standard_normal(shape) * scale
    return a.astype(np.float32), a


CASES = [
    ("cross_entropy", lambda m, x, t: m.nn.functional.cross_entropy(x, t)),
    ("cross_entropy_sum", lambda m, x, t: m.nn.functional.cross_entropy(x, t, reduction="sum")),
    ("cross_entropy_none", lambda m, x, t: m.nn.functional.cross_entropy(x, t, reduction="none")),
    ("nll_loss", lambda m, x, t: m.nn.functional.nll_loss(x.log_softmax(1), t)),
    ("layer_norm", lambda m, x, t: m.nn.functional.layer_norm(x, (x.shape[1],))),
    ("gelu", lambda m, x, t: m.nn.functional.gelu(x)),
    ("gelu_tanh", lambda m, x, t: m.nn.functional.gelu(x, approximate="tanh")),
    ("softmax", lambda m, x, t: x.softmax(-1)),
    ("log_softmax", lambda m, x, t: m.log_softmax(x, 1)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("shape", ((3, 4), (16, 10), (1, 7)), ids=str)
@pytest.mark.parametrize("double", (False, True))
def test_fast_paths_match_torch(name, fn, shape, double):
    f32, f64 = _pair(shape, 0)
    a = f64 if double else f32
    t = np.random.default_rng(1).integers(0, shape[1], shape[0])
    with mt.no_grad():
        got = fn(mt, mt.tensor(a), mt.tensor(t)).numpy()
    with torch.no_grad():
        want = fn(torch, torch.from_numpy(a.copy()), torch.from_numpy(t)).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-12 if double else 2e-6
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=name)


@pytest.mark.parametrize("training", (True, False))
def test_batch_norm_modules_match_torch(training):
    f32, _ = _pair((4, 3, 5, 5), 2)
    outs = []
    for m in (mt, torch):
        m.manual_seed(0)
        bn = m.nn.BatchNorm2d(3).train(training)
        with m.no_grad():
            bn.weight.copy_(m.tensor([0.5, 1.0, 2.0]))
            bn.running_var.fill_(1.5)
            out = bn(m.tensor(f32.copy()))
            out = bn(m.tensor(f32.copy()) * 2)
        outs.append((out.numpy(), bn.running_mean.numpy(), bn.running_var.numpy()))
    for got, want in zip(*outs, strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
