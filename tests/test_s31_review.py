"""Session 31 (helper review): torch-free regression tests of the fixes made while reviewing the
session's commits. Expected values were printed by torch 2.13 for the same calls: cdist's direct
p = 2 gradient taken from the differences (not a * sum r - r @ b, which cancels for inputs far
from the origin), a storage's copy_ refusing what is not a storage in torch's words and taking a
typed storage's bytes, a conversion to the same dtype copying, and Tensor.storage_type() naming
the legacy class of the dtype."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch


def test_cdist_direct_gradient_keeps_float32_digits_far_from_the_origin():
    a = minitorch.tensor([[100.1, 99.7, 100.4], [99.9, 100.2, 100.0]], requires_grad=True)
    b = minitorch.tensor([[100.1005, 99.7, 100.4], [100.0, 100.0, 100.3]], requires_grad=True)
    d = minitorch.cdist(a, b)
    d.backward(minitorch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(
        d.detach().numpy(), [[5.0354004e-04, 3.3166432e-01], [6.7097068e-01, 3.7416613e-01]],
        rtol=1e-6,
    )  # fmt: skip
    want_a = [[-0.39698988, -1.8090764, 0.6030101], [-1.9654921, 4.373622, -4.9956245]]
    want_b = [[1.8964646, -2.235567, 1.7884605], [0.46601743, -0.32897866, 2.6041539]]
    # (the matrix-product form's backward was 0.01 off here)
    np.testing.assert_allclose(a.grad.numpy(), want_a, atol=2e-6, err_msg="grad of x1")
    np.testing.assert_allclose(b.grad.numpy(), want_b, atol=2e-6, err_msg="grad of x2")


def test_cdist_direct_gradients_batched_and_at_zero_distance(device):
    g = np.random.default_rng(0)
    x = g.standard_normal((2, 4, 3)) + 30.0
    y = g.standard_normal((1, 5, 3)) + 30.0
    y[0, 1] = x[1, 2]  # a zero distance: torch's zero gradient there
    up = g.standard_normal((2, 4, 5))
    a = minitorch.tensor(x, requires_grad=True, device=device)
    b = minitorch.tensor(y, requires_grad=True, device=device)
    out = minitorch.cdist(a, b)
    assert type(out.grad_fn).__name__ == "CdistBackward0"
    out.backward(minitorch.tensor(up, device=device))
    diff = x[:, :, None, :] - y[:, None, :, :]
    dist = np.sqrt((diff**2).sum(-1))
    r = np.where(dist == 0, 0.0, up / np.where(dist == 0, 1.0, dist))
    np.testing.assert_allclose(out.detach().cpu().numpy(), dist, rtol=1e-13)
    np.testing.assert_allclose(a.grad.cpu().numpy(), (r[..., None] * diff).sum(2), rtol=1e-12)
    np.testing.assert_allclose(
        b.grad.cpu().numpy(), -(r[..., None] * diff).sum((0, 1))[None], rtol=1e-12
    )


def test_cdist_direct_second_derivative():
    g = np.random.default_rng(1)
    a = minitorch.tensor(g.standard_normal((3, 2)), requires_grad=True)
    b = minitorch.tensor(g.standard_normal((4, 2)), requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda x, y: minitorch.cdist(x, y), (a, b))
    assert minitorch.autograd.gradgradcheck(lambda x, y: minitorch.cdist(x, y), (a, b))


def test_storage_copy_refuses_what_is_not_a_storage():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = minitorch.FloatStorage(2)
        for src, name in ((minitorch.tensor([3.0, 4.0]), "Tensor"), ([1, 2], "list")):
            with pytest.raises(TypeError) as e:
                s.copy_(src)
            assert str(e.value) == (
                f"copy_(): argument 'src' (position 1) must be torch.Storage, not {name}"
            )
        with pytest.raises(TypeError, match="must be torch.Storage, not NoneType"):
            minitorch.UntypedStorage(2).copy_(None)
        # an untyped storage copies a typed one's bytes (1.0 and 2.0 in float32)
        u = minitorch.UntypedStorage(8).copy_(minitorch.FloatStorage([1.0, 2.0]))
        assert u.tolist() == [0, 0, 128, 63, 0, 0, 0, 64]
        assert s.copy_(minitorch.FloatStorage([3, 4])).tolist() == [3.0, 4.0]
        with pytest.raises(RuntimeError, match="self was 8 bytes but src was 16 bytes"):
            s.copy_(minitorch.DoubleStorage(2))


def test_storage_type_is_the_legacy_class():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage's deprecation warning, as torch gives
        assert minitorch.randn(2).storage_type() is minitorch.FloatStorage
        assert minitorch.tensor([1]).storage_type() is minitorch.LongStorage
        assert minitorch.tensor([True]).storage_type() is minitorch.BoolStorage
        assert minitorch.zeros(1, dtype=minitorch.bfloat16).storage_type() is (
            minitorch.BFloat16Storage
        )
        # dtypes without a legacy class, and the meta device: None, as torch
        assert minitorch.zeros(1, dtype=minitorch.uint16).storage_type() is None
        assert minitorch.zeros(1, device="meta").storage_type() is None
        assert minitorch.randn(1).storage_type() is minitorch.FloatStorage


def test_storage_conversion_to_its_own_dtype_is_a_copy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = minitorch.FloatStorage([1, 2])
        f = s.float()
        f[0] = 9
        assert s.tolist() == [1.0, 2.0]  # torch's float() of a FloatStorage is a copy
        assert f.tolist() == [9.0, 2.0]
