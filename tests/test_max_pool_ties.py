"""A max pool's value where -0. and 0. tie for a window's max: the first tap's sign, as torch's
(the per-tap route runs NumPy's maximum over the taps in the order that keeps the first)."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F

DTYPES = ["float32", "float64", "float16", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_first_zero_sign_wins(dtype, device):
    x = torch.tensor(
        [[[-0.0, 0.0, 0.0], [0.0, -0.0, -0.0], [-1.0, -0.0, 0.0]]],
        dtype=getattr(torch, dtype),
        device=device,
    )
    # windows that tile the input (the device's one-argmax route)
    y = F.max_pool1d(x[..., :2], 2).float().cpu().numpy()
    assert np.signbit(y).tolist() == [[[True], [False], [True]]]
    if device != "cpu":
        return  # (a device's per-tap route keeps CuPy's choice: reading it would sync)
    # overlapping and padded windows (the host's per-tap route)
    y = F.max_pool1d(x, 2, stride=1).float().cpu().numpy()
    assert np.signbit(y).tolist() == [[[True, False], [False, True], [True, True]]]
    y = F.max_pool2d(x[None], (1, 2), stride=(1, 1), padding=(0, 1)).float().cpu().numpy()
    assert np.signbit(y[0]).tolist() == [
        [[True, True, False, False], [False, False, True, True], [True, True, True, False]]
    ]


@pytest.mark.parametrize("dtype", DTYPES)
def test_matches_torch(dtype):
    ref = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = rng.choice([0.0, -0.0, -1.0], size=(2, 3, 5, 7))
    for kw in (
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=2, stride=1),
        dict(kernel_size=(2, 3), stride=(1, 2), dilation=(2, 1)),
    ):
        got = F.max_pool2d(torch.tensor(a, dtype=getattr(torch, dtype)), **kw)
        want = ref.nn.functional.max_pool2d(ref.tensor(a, dtype=getattr(ref, dtype)), **kw)
        np.testing.assert_array_equal(
            np.signbit(got.float().numpy()), np.signbit(want.float().numpy())
        )
