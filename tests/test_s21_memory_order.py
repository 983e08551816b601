"""Random fills of strided tensors in memory order, as torch's TensorIterator (values from torch
2.13 after the same seed): a transposed tensor's uniform_/normal_, and dropout on a transposed
input (its mask is empty_like(input), drawn in memory order)."""

from __future__ import annotations

import numpy as np

import minitorch as torch
import minitorch.nn.functional as F


def test_dropout_of_a_transposed_input_draws_its_mask_in_memory_order():
    torch.manual_seed(0)
    got = F.dropout(torch.ones(3, 4).t(), 0.5)
    want = [[0.0, 0.0, 0.0], [0.0, 0.0, 2.0], [2.0, 2.0, 2.0], [0.0, 2.0, 2.0]]
    np.testing.assert_array_equal(got.numpy(), want)


def test_uniform_and_normal_fill_a_transposed_tensor_in_memory_order():
    torch.manual_seed(1)
    u = torch.empty(3, 5).t().uniform_()
    np.testing.assert_array_equal(
        u.numpy()[:2],
        np.array(
            [
                [0.7576315999031067, 0.7998586297035217, 0.6386804580688477],
                [0.2793108820915222, 0.3971373438835144, 0.524665892124176],
            ],
            dtype=np.float32,
        ),
    )
    torch.manual_seed(2)
    z = torch.empty(6, 3).t().normal_()  # 18 strided elements: one normal at a time
    np.testing.assert_array_equal(
        z.numpy()[0, :3],
        np.array([0.39229682087898254, -1.2050371170043945, 0.5731067657470703], np.float32),
    )


def test_batch_first_transformer_layer_with_dropout_is_torchs():
    # its first dropout sees attention's output transposed back: torch's masks only in memory
    # order (the outputs differed by ~1e-2 before)
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.2, batch_first=True, dtype=torch.float64
    )
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    want = [
        [-0.2073580050631633, 1.1217539438717516, 0.3983651914699943],
        [1.3059132919409386, -1.3246602899308142, -0.6058426013233438],
    ]
    np.testing.assert_allclose(layer(x)[0, :2, :3].detach().numpy(), want, rtol=1e-13)
