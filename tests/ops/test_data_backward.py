"""The two backward formulas of an op agree: `_backward_data` (arrays, run by a first-order
backward) and `backward` (Tensor ops, run under create_graph). See NOTE [ Data-level backward ]
in minitorch/autograd/engine.py. test_grad and test_gradgrad in test_ops.py check each against
numerical derivatives; here they are compared with each other on every row of the op table, in
float32 and float64, and in float16 on a few rows that run the half-precision branches."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch._ops
from minitorch.autograd import Function, engine
from tests.ops.test_ops import (
    GRAD_SPECS,
    as_list,
    dtype_cases,
    grad_inputs,
    make_tensors,
    upstream_gradients,
    xfail_reason,
)

_TOL = {"float64": 1e-12, "float32": 1e-6, "float16": 1e-3}
_DATA_BACKWARD = engine._data_backward
_RUN_DATA_NODE = engine._run_data_node
_GRAD_PLAN = engine._grad_plan


def _grads(spec, case, data_path: bool, ran: set, monkeypatch, walk="grad"):
    """The gradients of spec's op in dtype `case`, with or without the data-level backward,
    through autograd.grad (walk "grad": the general loop, every node through the engine's
    _run_node or _run_data_node; walk "grad_walk": the data walk, arrays from node to node) or
    backward() into .grad (walk "backward": the data walk); the Functions whose data-level
    backward ran in the general loop are added to `ran`."""
    monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
    # "grad": autograd.grad's data walk declined (NOTE [ autograd.grad's data walk ])
    monkeypatch.setattr(engine, "_grad_plan", (lambda *a: None) if walk == "grad" else _GRAD_PLAN)

    def recording(node, grads):
        ran.add(node._fn)
        return _DATA_BACKWARD(node, grads)

    def recording_node(node, *args):
        ran.add(node._fn)
        return _RUN_DATA_NODE(node, *args)

    monkeypatch.setattr(engine, "_data_backward", recording)
    monkeypatch.setattr(engine, "_run_data_node", recording_node)
    wanted = grad_inputs(spec, case)
    tensors = make_tensors(spec, case, "cpu", wanted)
    outs = as_list(spec.op(*tensors, **spec.kwargs))
    pairs = [
        (o, g)
        for o, g in zip(outs, upstream_gradients(spec, outs, "cpu"), strict=True)
        if g is not None and o.requires_grad
    ]
    if not pairs:
        return None
    xs = [tensors[i] for i in wanted]
    if walk == "backward":
        mt.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return [None if x.grad is None else x.grad.numpy() for x in xs]
    got = mt.autograd.grad([o for o, _ in pairs], xs, [g for _, g in pairs], allow_unused=True)
    return [None if g is None else g.numpy() for g in got]


def _float_cases(spec):
    return [c for c in dtype_cases(spec) if grad_inputs(spec, c)]


def test_data_backward_matches_backward(monkeypatch):
    mismatches = []
    ran: set = set()
    for spec in GRAD_SPECS:
        if xfail_reason(spec, "grad") is not None:
            continue
        for case in _float_cases(spec):
            here: set = set()
            fast = _grads(spec, case, True, here, monkeypatch)
            walked = _grads(spec, case, True, here, monkeypatch, walk="backward")
            grad_walked = _grads(spec, case, True, here, monkeypatch, walk="grad_walk")
            ran |= here
            if not here or fast is None:
                continue  # no node of this op has a data-level backward
            slow = _grads(spec, case, False, set(), monkeypatch)
            runs = (("grad", fast), ("backward", walked), ("grad walk", grad_walked))
            for how, got in runs:
                for i, (f, s) in enumerate(zip(got, slow, strict=True)):
                    at = f"{spec.name} {case} ({how}): input {i}"
                    if (f is None) != (s is None):
                        mismatches.append(f"{at}: None on one path only")
                        continue
                    if f is None:
                        continue
                    tol = _TOL[str(f.dtype)]
                    if f.dtype != s.dtype or f.shape != s.shape:
                        mismatches.append(f"{at}: {f.dtype}{f.shape} vs {s.dtype}{s.shape}")
                    elif not np.allclose(f, s, rtol=tol, atol=tol, equal_nan=True):
                        err = np.max(np.abs(f.astype(float) - s.astype(float)))
                        mismatches.append(f"{at}: max difference {err:.3g}")
    assert not mismatches, "\n".join(mismatches)

    # every op that has a data-level backward was compared on some row
    defined = {
        cls
        for cls in _subclasses(Function)
        if cls.__dict__.get("_backward_data") is not None
        and cls.__module__.startswith("minitorch._ops")
    }
    missed = sorted(c.__name__ for c in defined if not any(issubclass(r, c) for r in ran))
    assert not missed, f"no op-table row runs the data-level backward of {missed}"


def _subclasses(cls):
    out = set()
    for sub in cls.__subclasses__():
        out.add(sub)
        out |= _subclasses(sub)
    return out


# float16: the branches that widen to float32 (means, sums, softmax, layer norm) or hand a
# number operand back to the Tensor formula, on shapes the table uses
_HALF_CASES = [
    ("mean", lambda x: x.mean(), [(4, 5)]),
    ("mean_dim", lambda x: x.mean(1, keepdim=True), [(4, 5)]),
    ("sum_dim", lambda x: x.sum(0), [(4, 5)]),
    ("mul_number", lambda x: x * 0.1, [(4, 5)]),
    ("div_number", lambda x: x / 3.0, [(4, 5)]),
    ("pow_number", lambda x: x**3, [(4, 5)]),
    ("softmax", lambda x: x.softmax(1), [(4, 5)]),
    ("log_softmax", lambda x: x.log_softmax(1), [(4, 5)]),
    ("logsumexp", lambda x: x.logsumexp(1), [(4, 5)]),
    ("tanh_sigmoid", lambda x: x.tanh() * x.sigmoid(), [(4, 5)]),
    ("linear", lambda x, w: mt.nn.functional.linear(x, w, w[0]), [(4, 5), (5, 5)]),
    ("mm", lambda x, w: x @ w, [(4, 5), (5, 3)]),
    ("add_bias", lambda x, b: x + b, [(4, 5), (5,)]),
    ("mul_column", lambda x, c: x * c, [(3, 4, 5), (4, 1)]),
]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name, fn, shapes", _HALF_CASES, ids=[c[0] for c in _HALF_CASES])
def test_data_backward_matches_backward_half(name, fn, shapes, dtype, monkeypatch):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    dt = getattr(mt, dtype)
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-2, 2, size=s) for s in shapes]
    g = None
    results = []
    for data_path in (True, False):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        xs = [mt.tensor(a, dtype=dt, requires_grad=True) for a in arrays]
        out = fn(*xs)
        if g is None:
            g = mt.tensor(rng.uniform(-1, 1, size=tuple(out.shape)), dtype=dt)
        results.append([r.float().numpy() for r in mt.autograd.grad(out, xs, g)])
    for f, s in zip(*results, strict=True):
        np.testing.assert_array_equal(f, s)


def test_layer_norm_half_backward_in_float32(monkeypatch):
    # layer_norm's data-level backward computes in float32 from the half-rounded mean and rstd
    # torch saves, and rounds once (torch's values, NOTE [ Half LayerNorm backward ]); its Tensor
    # formula (for create_graph) computes in half: close, not equal
    rng = np.random.default_rng(0)
    a = rng.uniform(-2, 2, size=(4, 5))
    g = rng.uniform(-1, 1, size=(4, 5))
    results = []
    for data_path in (True, False):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        x = mt.tensor(a.astype(np.float16), requires_grad=True)
        out = mt.nn.functional.layer_norm(x, (5,))
        results.append(mt.autograd.grad(out, x, mt.tensor(g.astype(np.float16)))[0].numpy())
    torch_values = [
        [-0.47802734375, -0.498291015625, 0.250732421875, 0.2027587890625, 0.52294921875],
        [-0.6796875, 0.44482421875, 0.72265625, -0.71337890625, 0.2261962890625],
        [0.319580078125, -0.2293701171875, -0.389404296875, 0.207763671875, 0.09124755859375],
        [-0.57177734375, -0.2802734375, 0.6142578125, 0.73779296875, -0.5],
    ]
    np.testing.assert_array_equal(results[0].astype(np.float32), torch_values)
    np.testing.assert_allclose(results[1], results[0], atol=1e-2)


def test_data_backward_falls_back_to_tensor_formula():
    # gelu's tanh approximation has no data-level formula: NotImplemented hands it to backward,
    # whose gradient is the approximation's derivative
    a = np.array([[-1.0, 0.5, 2.0]])
    x = mt.tensor(a, requires_grad=True)
    (g,) = mt.autograd.grad(mt.nn.functional.gelu(x, approximate="tanh").sum(), x)
    k, c = np.sqrt(2 / np.pi), 0.044715
    t = np.tanh(k * (a + c * a**3))
    want = 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * k * (1 + 3 * c * a * a)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)


def test_a_declined_data_backward_is_asked_once(monkeypatch):
    # NotImplemented from _backward_data hands the node to its Tensor formula, once
    x = mt.tensor([[-1.0, 0.5, 2.0]], dtype=mt.float64, requires_grad=True)
    y = mt.nn.functional.gelu(x, approximate="tanh")
    calls = []
    real = minitorch._ops.activation.Gelu._backward_data

    def counting(ctx, grad):
        calls.append(1)
        return real(ctx, grad)

    monkeypatch.setattr(type(y.grad_fn), "_data_bw", counting)  # what the engine calls
    y.sum().backward()
    assert len(calls) == 1
    assert x.grad is not None
