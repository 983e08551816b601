"""Session 45, lead: dir() of graph nodes against torch's (NOTE [ What dir() shows of a node ])."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _public(obj):
    return sorted(n for n in dir(obj) if not n.startswith("__"))


# torch's nodes also list a few names minitorch's do not have
_TORCH_ONLY = {"_input_metadata", "_register_hook_dict", "_set_sequence_nr"}


@pytest.mark.parametrize(
    "program",
    [
        lambda m, x: x * x,
        lambda m, x: x.sum(),
        lambda m, x: (x * 2).exp(),
        lambda m, x: m.nn.functional.softmax(x, 0),
        lambda m, x: x.relu(),
        lambda m, x: x.sum().grad_fn.next_functions[0][0],
    ],
)
def test_builtin_node_dir_matches_torch(program):
    got = []
    for m in (mt, torch):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = program(m, x)
        node = out if not isinstance(out, m.Tensor) else out.grad_fn
        got.append([n for n in _public(node) if n not in _TORCH_ONLY])
    assert got[0] == got[1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("feature", [False, True])
def test_dropout_scale_is_torchs_in_every_dtype(dtype, feature):
    # NOTE [ dropout's scale ]: the mask divided by 1 - p in its dtype (p = 0.45, 0.15 and 0.33
    # gave float32 values one ulp off torch's when the scale was rounded from double)
    x = np.random.default_rng(0).standard_normal((4, 8, 5, 5)).astype(np.float32)
    for p in (0.45, 0.15, 0.33, 0.5):
        got = []
        for m in (mt, torch):
            m.manual_seed(0)
            t = m.tensor(x).to(getattr(m, dtype)).requires_grad_()
            fn = m.nn.functional.dropout2d if feature else m.nn.functional.dropout
            y = fn(t, p)
            y.backward(m.ones_like(y))
            got.append((y.detach().float().numpy(), t.grad.float().numpy()))
        np.testing.assert_array_equal(got[0][0], got[1][0], err_msg=f"{dtype} p={p}")
        np.testing.assert_array_equal(got[0][1], got[1][1], err_msg=f"{dtype} p={p} grad")
