"""Views, in-place ops and autograd against torch: small programs found by differential fuzzing
(session 21), run in both libraries with everything observable compared."""

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _state(t):
    leaf = t.is_leaf  # before grad_fn, whose look-up may replay a view on its base
    fn = t.grad_fn
    return (
        tuple(t.shape),
        t.detach().numpy().round(10).tolist(),
        t.requires_grad,
        leaf,
        None if fn is None else fn.name(),
        None if t.grad is None else t.grad.numpy().round(10).tolist(),
    )


def _run(T, program):
    ns = {"T": T}
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for line in program:
            try:
                exec(line, ns)
                err = None
            except Exception as e:  # noqa: BLE001
                err = (type(e).__name__, str(e))
            tensors = {k: _state(v) for k, v in ns.items() if isinstance(v, T.Tensor)}
            out.append((err, tensors))
    return out


PROGRAMS = [
    [
        "b = T.zeros(2, 2, dtype=T.float64)",
        "v = b.unfold(0, 1, 1)",
        "s = T.tensor(1.5, dtype=T.float64, requires_grad=True)",
        "v[T.tensor([0, 1])] = s",
        "v.sum().backward()",
    ],
    [
        "b = T.zeros(4, 3, 1, dtype=T.float64)",
        "a = b.detach()",
        "T.sin(T.tensor([-0.012], dtype=T.float64), out=a)",
    ],
    [
        "b = T.ones(2, 3, dtype=T.float64)",
        "v = b[0]",
        "u = v[1:]",
        "b.requires_grad_()",
        "y = (v * 2).sum()",
        "y.backward()",
        "b.requires_grad_(False)",
        "b.requires_grad_(True)",
        "v.requires_grad_(True)",
        "(u * 3 + v[1:]).sum().backward()",
        "b.requires_grad_(False)",
    ],
    [
        "b = T.ones(3, 1, 1, dtype=T.float64)",
        "v = b.view((1, 3))",
        "v[:, :, ...] = 0.0",
        "b.requires_grad_()",
        "(v * T.tensor([[1.0, 2.0, 3.0]], dtype=T.float64)).sum().backward()",
    ],
    [
        "a = T.tensor([[-1.735, 1.423]], dtype=T.float64, requires_grad=True)",
        "with T.no_grad():\n    v = a.movedim(0, -1)",
        "v.requires_grad_()",
        "y = (v * v).sum()",
        "v.requires_grad_(False)",
        "y.backward()",
        "z = v * 2",
    ],
]


@pytest.mark.parametrize("program", PROGRAMS, ids=range(len(PROGRAMS)))
def test_program_matches_torch(program):
    ours = _run(minitorch, program)
    theirs = _run(torch, program)
    for line, (e1, s1), (e2, s2) in zip(program, ours, theirs, strict=True):
        assert e1 == e2, line
        assert s1 == s2, line
    np.testing.assert_equal(len(ours), len(program))
