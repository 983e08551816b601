"""Session 23: optimizer steps against torch 2.13's bits (CPU, default for-loop path).

torch's addcdiv_ kernel computes p + (value * num) / den in that order; the optimizers' update
p -= step * num / den (_sub_quotient_) now rounds the same way (it divided first). Adamax with
beta1 = 0 has no other rounding difference (its lerp with weight 1 is exact, its max exact), so
its float64 trajectory is torch's to the bit. The expected bytes are torch 2.13's parameter
(obtained by running torch here)."""

from __future__ import annotations

import numpy as np

import minitorch
from minitorch import optim

# torch.optim.Adamax([p], lr=0.01, betas=(0.0, 0.99)) after the five steps below, float64 bytes
_TORCH_ADAMAX_F64 = (
    "4796e799f30de13f982dd6e0a245ce3f7a458bf76c2dafbfc8e599f890b402c0ccb6afe18cf8dc3fe13a99a8"
    "1ee200c0b1b21a8a4568ed3f4405894834cee23ffaabfb5b0a54eb3f772d1705f7dce93f78818daf301dd33f"
    "7d8661b31acce1bf9ba940e50986d3bf0221feb96ff8f73f1ad7b7ffccade2bfe65d998da8ffcbbfca235d1a"
    "dccce7bfa92465a53572e0bfa2fbf8cd8632d4bfb64f0885999ad13f19d40e4aab81d1bf906c163e7c1ed5bf"
    "0dd873622f18e3bf5935e2776d36bc3f0b511ad7c57ef5bfa3d910313e7ab33ff0da2bf61a10f53fa0415f27"
    "b43ce9bf37ec2a6af8b39abf012fdd0054a90640d3aaa19389c6efbf5fdd3cd2b9f1f9bf7f4fdd4dbba5dcbf"
    "66143e10433bfd3f7aa92fb0606f00409a7e11328072f3bf917d70b3c191e13f4539dc597a0f813f344bc3df"
    "6d8be3bf827884552884ffbf5ee3ea314a5ff03fe6d1aa8258afebbfec1d1327a2e1d13f9863fdf10350b53f"
    "824e221ab1edfd3f7416fac16c23f33f0ace6254451bf2bf34e37f2c0fc7d0bf"
)


def test_adamax_addcdiv_order_bits_float64():
    rng = np.random.default_rng(23)
    p = rng.standard_normal(48).astype(np.float32)
    grads = [(rng.standard_normal(48) * s).astype(np.float32) for s in (1, 1e-3, 10, 1, 0.1)]
    t = minitorch.tensor(p.astype(np.float64)).requires_grad_()
    opt = optim.Adamax([t], lr=0.01, betas=(0.0, 0.99))
    for g in grads:
        t.grad = minitorch.tensor(g.astype(np.float64))
        opt.step()
    assert t.detach().numpy().tobytes().hex() == _TORCH_ADAMAX_F64
