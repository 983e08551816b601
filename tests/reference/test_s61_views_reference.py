"""Session 61: a view taken under no_grad of a leaf that requires grad, after its base stops (and
starts again) requiring grad, against torch (tests/test_s61_views.py)."""

import pytest

import minitorch

torch = pytest.importorskip("torch")


def _setup(lib, mode):
    a = lib.ones(3, requires_grad=True)
    with getattr(lib, mode)():
        v = a[:2]
        vv = v[:1]
    return a, v, vv


STEPS = {
    "flags": lambda lib, a, v, vv: (v.requires_grad, vv.requires_grad, v.is_leaf),
    "op": lambda lib, a, v, vv: (v * 2).requires_grad,
    "hook": lambda lib, a, v, vv: v.register_hook(lambda g: g) and "registered",
    "inplace": lambda lib, a, v, vv: (v.mul_(2).tolist(), a._version),
    "inplace_operand": lambda lib, a, v, vv: v.mul_(lib.ones(2, requires_grad=True)).tolist(),
    "base_changed": lambda lib, a, v, vv: (a.add_(1), v.requires_grad, (v * 2).requires_grad)[1:],
    "again": lambda lib, a, v, vv: (a.requires_grad_(True), v.requires_grad, v.is_leaf)[1:],
    "again_inplace": lambda lib, a, v, vv: (a.requires_grad_(True), v.mul_(2))[1].tolist(),
    "own_flag": lambda lib, a, v, vv: (v.requires_grad_(True), v.requires_grad)[1],
}


def _run(lib, mode, step):
    a, v, vv = _setup(lib, mode)
    if step == "own_flag":
        v.requires_grad_(True)
    a.requires_grad_(False)
    try:
        return STEPS[step](lib, a, v, vv)
    except RuntimeError as e:
        return str(e)[:80]


@pytest.mark.parametrize("step", list(STEPS))
@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_a_view_after_its_base_stops_requiring_grad_matches_torch(mode, step):
    assert _run(minitorch, mode, step) == _run(torch, mode, step)
