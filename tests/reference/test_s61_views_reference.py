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


def _detached(lib, nonleaf, mode):
    a = lib.ones(2, 3, requires_grad=True)
    base = a * 2 if nonleaf else a
    with getattr(lib, mode)():
        views = [base[0], base.unbind(1)[2], base.expand(2, 2, 3), base[0][1:]]
    try:
        with lib.inference_mode() if mode == "inference_mode" else lib.no_grad():
            if mode == "inference_mode":
                base.detach_()
        if mode != "inference_mode":
            base.detach_()
    except RuntimeError as e:
        return str(e)[:80]
    return base.requires_grad, [(v.requires_grad, v.is_leaf) for v in views]


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad", "inference_mode"])
@pytest.mark.parametrize("nonleaf", [False, True])
def test_views_after_their_base_is_detached_in_place_match_torch(nonleaf, mode):
    assert _detached(minitorch, nonleaf, mode) == _detached(torch, nonleaf, mode)


def _gained(lib, how):
    c = lib.ones(2, 3, dtype=lib.float64)
    b = lib.tensor([0.3, -1.1, 0.7], dtype=lib.float64, requires_grad=True)
    v = c[0]
    v.mul_(b)
    if how == "hook":
        v.register_hook(lambda g: g * 100)
    elif how == "retain":
        v.retain_grad()
    root = (c if how == "hook_base" else v) * 5
    if how == "hook_base":
        v.register_hook(lambda g: g * 100)
    root.sum().backward(inputs=[v] if how == "inputs" else None)
    return (
        None if b.grad is None else b.grad.tolist(),
        v.retains_grad,
        None if v.grad is None else v.grad.tolist(),
    )


@pytest.mark.parametrize("how", ["hook", "retain", "inputs", "hook_base"])
def test_a_view_that_gained_history_matches_torch(how):
    assert _gained(minitorch, how) == _gained(torch, how)
