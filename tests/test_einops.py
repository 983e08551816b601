"""einops on minitorch tensors (NOTE [ einops backend ] in minitorch/_einops.py)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt

einops = pytest.importorskip("einops")


def test_rearrange_reduce_repeat_keep_tensors_and_gradients():
    a = np.arange(120.0).reshape(2, 3, 4, 5)
    x = mt.tensor(a, requires_grad=True)
    y = einops.rearrange(x, "b c h w -> b (h w) c")
    assert isinstance(y, mt.Tensor) and y.shape == (2, 20, 3) and y.requires_grad
    np.testing.assert_array_equal(y.detach().numpy(), a.transpose(0, 2, 3, 1).reshape(2, 20, 3))
    r = einops.reduce(x, "b c h w -> b c", "max")
    np.testing.assert_array_equal(r.detach().numpy(), a.max(axis=(2, 3)))
    z = einops.repeat(mt.tensor([1.0, 2.0]), "c -> b c", b=3)
    assert z.tolist() == [[1.0, 2.0]] * 3
    (y * y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * a)
    e = einops.einsum(mt.ones(2, 3), mt.ones(3, 4), "i j, j k -> i k")
    assert e.tolist() == [[3.0] * 4] * 2
    packed, shapes = einops.pack([mt.ones(2, 3), mt.zeros(2, 4)], "b *")
    assert packed.shape == (2, 7) and [tuple(s) for s in shapes] == [(3,), (4,)]


def test_backend_registers_whichever_is_imported_first():
    # einops imported before minitorch: the backend is defined at minitorch's import instead
    code = (
        "import einops, minitorch\n"
        "from einops import rearrange\n"
        "print(tuple(rearrange(minitorch.ones(2, 3), 'a b -> b a').shape))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(3, 2)"
