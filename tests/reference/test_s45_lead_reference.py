"""Session 45, lead: dir() of graph nodes against torch's (NOTE [ What dir() shows of a node ])."""

from __future__ import annotations

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
