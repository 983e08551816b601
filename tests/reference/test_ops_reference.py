"""Every op-test row with a torch_op (tests/ops/specs_*.py), against PyTorch on the CPU: forward
values, shapes and dtypes for each dtype case, and first gradients in float64 for a random
upstream gradient. Skipped where torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from tests.ops.test_ops import (
    GRAD_SPECS,
    SPECS,
    as_list,
    dtype_cases,
    grad_case,
    grad_inputs,
    make_arrays,
    mark_known_bug,
    params,
    tolerances,
    upstream_gradients,
)

torch = pytest.importorskip("torch")

TORCH_SPECS = [s for s in SPECS if s.torch_op is not None]
TORCH_GRAD_SPECS = [s for s in GRAD_SPECS if s.torch_op is not None]


@pytest.fixture(autouse=True)
def _known_bugs(request):
    mark_known_bug(request)


def _torch_tensors(arrays, wanted=()):
    return [torch.from_numpy(a.copy()).requires_grad_(i in wanted) for i, a in enumerate(arrays)]


def _host(t):
    # force: torch's ZeroTensor gradients (sgn) refuse a plain .numpy()
    return t.detach().cpu().numpy(force=True)


@pytest.mark.parametrize("spec", params(TORCH_SPECS))
def test_forward_matches_torch(spec):
    for case in dtype_cases(spec):
        if "bfloat16" in case:
            continue  # NumPy has no bfloat16 to hand the same inputs to torch
        arrays = make_arrays(spec, case)
        ours = as_list(spec.op(*[mt.tensor(a) for a in arrays], **spec.kwargs))
        theirs = as_list(spec.torch_op(*_torch_tensors(arrays), **spec.kwargs))
        assert len(ours) == len(theirs), (
            f"{spec.name} {case}: {len(ours)} outputs, torch {len(theirs)}"
        )
        for k, (o, t) in enumerate(zip(ours, theirs, strict=True)):
            where = f"{spec.name} {case} output {k}"
            if not isinstance(t, torch.Tensor):
                assert o == t, f"{where}: {o!r}, torch {t!r}"
                continue
            want = str(t.dtype).removeprefix("torch.")
            assert o.dtype.name == want, f"{where}: dtype {o.dtype.name}, torch {want}"
            assert tuple(o.shape) == tuple(t.shape), (
                f"{where}: shape {tuple(o.shape)}, torch {tuple(t.shape)}"
            )
            if o.dtype.is_floating_point:
                rtol, atol = tolerances(spec, o.dtype, _host(t))
                np.testing.assert_allclose(_host(o), _host(t), rtol=rtol, atol=atol, err_msg=where)
            else:
                np.testing.assert_array_equal(_host(o), _host(t), err_msg=where)


@pytest.mark.parametrize("spec", params(TORCH_GRAD_SPECS))
def test_grad_matches_torch(spec):
    case = grad_case(spec)
    wanted = grad_inputs(spec, case)
    arrays = make_arrays(spec, case)
    xs = [mt.tensor(a, requires_grad=i in wanted) for i, a in enumerate(arrays)]
    ts = _torch_tensors(arrays, wanted)
    ours = [o for o in as_list(spec.op(*xs, **spec.kwargs)) if _differentiable(o)]
    theirs = [t for t in as_list(spec.torch_op(*ts, **spec.kwargs)) if _differentiable(t)]
    assert len(ours) == len(theirs), (
        f"{spec.name}: {len(ours)} differentiable outputs, torch {len(theirs)}"
    )
    if not ours:
        return
    gs = upstream_gradients(spec, ours, "cpu")
    our_grads = mt.autograd.grad(ours, [xs[i] for i in wanted], gs, allow_unused=True)
    their_grads = torch.autograd.grad(
        theirs, [ts[i] for i in wanted], [torch.from_numpy(_host(g)) for g in gs], allow_unused=True
    )
    for i, g, t in zip(wanted, our_grads, their_grads, strict=True):
        where = f"{spec.name}: gradient of input {i}"
        ref = np.zeros(arrays[i].shape) if t is None else _host(t)
        got = np.zeros(arrays[i].shape) if g is None else _host(g)
        np.testing.assert_allclose(got, ref, rtol=spec.rtol, atol=spec.atol, err_msg=where)


def _differentiable(t) -> bool:
    return getattr(t, "requires_grad", False) and t.dtype.is_floating_point
