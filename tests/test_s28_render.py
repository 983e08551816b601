"""Session 28 (helper render): library fixes found by running differentiable-rendering programs
(NeRF, 3DGS, SDF/NeuS, hash grids, soft rasterisers) against torch 2.13; the messages below are
torch's."""

from __future__ import annotations

import pytest

import minitorch as mt

_OVERLOADS = (
    " * ({a} start, {b} end, int steps{base}, *, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool "
    "requires_grad = False)"
)


def _expected(op: str, got: str) -> str:
    base = ", float base = 10.0" if op == "logspace" else ""
    kinds = (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number"))
    forms = [_OVERLOADS.format(a=a, b=b, base=base) for a, b in kinds]
    head = (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:"
    )
    return head + "\n" + "\n".join(forms) + "\n"


@pytest.mark.parametrize(
    ("call", "op", "got"),
    [
        (lambda: mt.linspace(0, 1), "linspace", "int, int"),
        (
            lambda: mt.linspace(0.0, 1, dtype=mt.float64),
            "linspace",
            "float, int, dtype=torch.dtype",
        ),
        (lambda: mt.linspace(0, 1, None), "linspace", "int, int, NoneType"),
        (lambda: mt.logspace(0, 1), "logspace", "int, int"),
        (lambda: mt.logspace(0, 1, base=2.0), "logspace", "int, int, base=float"),
        (
            lambda: mt.logspace(0, 1, base=2.0, dtype=mt.float64, requires_grad=True),
            "logspace",
            "int, int, dtype=torch.dtype, requires_grad=bool, base=float",
        ),
    ],
)
def test_space_without_steps_is_torchs_overload_error(call, op, got):
    # a ray sampler's linspace(near, far) without the sample count: torch's argument parser
    # finds no overload (steps has no default), where Python's own TypeError named 'steps'
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == _expected(op, got)


def test_space_with_steps_still_works():
    assert mt.linspace(2.0, 6.0, 3).tolist() == [2.0, 4.0, 6.0]
    assert mt.logspace(0, 1, steps=2, base=2.0).tolist() == [1.0, 2.0]
    assert mt.linspace(0, 1, steps=0).shape == (0,)


@pytest.mark.parametrize("shape", [(4,), (3, 2, 2)])
def test_embedding_weight_not_2d_message(shape):
    with pytest.raises(RuntimeError) as info:
        mt.nn.functional.embedding(mt.tensor([0]), mt.zeros(shape))
    assert str(info.value) == "'weight' must be 2-D"
    with pytest.raises(RuntimeError, match="^'weight' must be 2-D$"):
        mt.embedding(mt.zeros(shape), mt.tensor([0]))
