"""Session 37 (helper compile): torch-free regression tests of the library fixes the programs of
tests/reference/test_s37_compile_reference.py found: minitorch.compile (and
_dynamo.optimize) wrapping an nn.Module in an OptimizedModule as torch does (`_orig_mod`, the
`_orig_mod.` state_dict prefix, attributes and training mode passed to the original, len,
deepcopy and pickle); compile's argument checks in torch's order (the decorator form checking
when applied, mode and options only for inductor, dynamic's AssertionError); and jit.trace running
its function once on the example inputs with torch's errors for outputs the tracer cannot record.
torch's messages are written here as literals."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minitorch as mt
from minitorch._dynamo.eval_frame import OptimizedModule


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _mlp(seed=0):
    mt.manual_seed(seed)
    return mt.nn.Sequential(mt.nn.Linear(3, 4), mt.nn.ReLU(), mt.nn.Linear(4, 2)).double()


# --- compile(module) is an OptimizedModule ---


def test_compile_wraps_a_module_as_torch():
    m = _mlp()
    c = mt.compile(m, backend="eager")
    assert type(c) is OptimizedModule and c._orig_mod is m
    assert repr(c) == (
        "OptimizedModule(\n"
        "  (_orig_mod): Sequential(\n"
        "    (0): Linear(in_features=3, out_features=4, bias=True)\n"
        "    (1): ReLU()\n"
        "    (2): Linear(in_features=4, out_features=2, bias=True)\n"
        "  )\n"
        ")"
    )
    keys = ["_orig_mod.0.weight", "_orig_mod.0.bias", "_orig_mod.2.weight", "_orig_mod.2.bias"]
    assert list(c.state_dict()) == keys
    assert [n for n, _ in c.named_parameters()] == keys
    assert [n for n, _ in c.named_modules()] == [
        "",
        "_orig_mod",
        *(f"_orig_mod.{i}" for i in "012"),
    ]
    assert all(a is b for a, b in zip(c.parameters(), m.parameters(), strict=True))
    x = mt.randn(5, 3, generator=mt.Generator().manual_seed(1), dtype=mt.float64)
    np.testing.assert_array_equal(c(x).detach().numpy(), m(x).detach().numpy())
    assert len(c) == 3
    assert _message(TypeError, lambda: c[0]) == "'OptimizedModule' object is not subscriptable"


def test_compile_keeps_functions_and_disabled_modules():
    m = _mlp()
    assert mt.compile(m, disable=True) is m
    assert type(mt.compile(mode="reduce-overhead")(m)) is OptimizedModule

    def f(a):
        return a * 2

    assert mt.compile(f) is f
    msg = "A callable function is expected, but <class 'int'> is provided."
    assert _message(AssertionError, lambda: mt.compile(3, disable=True)) == msg


def test_optimized_module_passes_attributes_to_the_original():
    mt.manual_seed(0)
    lin = mt.nn.Linear(3, 2)
    c = mt.compile(lin)
    assert c.weight is lin.weight and c.in_features == 3
    c.tag = 5
    assert lin.tag == 5 and "tag" not in vars(c)
    del c.tag
    assert not hasattr(lin, "tag")
    assert _message(AttributeError, lambda: c.nope) == "'Linear' object has no attribute 'nope'"
    assert _message(TypeError, lambda: len(c)) == "Linear does not support len()"
    c.alpha = mt.nn.Parameter(mt.ones(1))
    assert [n for n, _ in c.named_parameters()] == [
        "_orig_mod.weight", "_orig_mod.bias", "_orig_mod.alpha"
    ]  # fmt: skip
    c.register_buffer("buf", mt.ones(1))  # a method of the wrapper: registered on it
    assert list(c.state_dict())[0] == "buf" and not hasattr(lin, "buf")


def test_optimized_module_training_is_the_originals():
    lin = mt.nn.Linear(2, 2)
    c = mt.compile(lin)
    assert c.eval() is c and lin.training is False and c.training is False
    lin.train()
    assert c.training is True
    c.training = False
    assert lin.training is False


def test_optimized_module_state_dict_prefix_errors():
    src, dst = mt.compile(mt.nn.Linear(2, 2)), mt.nn.Linear(2, 2)
    msg = _message(RuntimeError, lambda: src.load_state_dict(dst.state_dict()))
    assert msg == (
        "Error(s) in loading state_dict for OptimizedModule:\n"
        '\tMissing key(s) in state_dict: "_orig_mod.weight", "_orig_mod.bias". \n'
        '\tUnexpected key(s) in state_dict: "weight", "bias". '
    )
    assert repr(dst.load_state_dict(src.state_dict(), strict=False)) == (
        "_IncompatibleKeys(missing_keys=['weight', 'bias'], "
        "unexpected_keys=['_orig_mod.weight', '_orig_mod.bias'])"
    )


def test_optimized_module_copies_its_original():
    m = _mlp()
    c = mt.compile(m)
    for d in (copy.deepcopy(c), pickle.loads(pickle.dumps(c))):
        assert type(d) is OptimizedModule and d._orig_mod is not m
        assert list(d.state_dict()) == list(c.state_dict())
        np.testing.assert_array_equal(
            d._orig_mod[0].weight.detach().numpy(), m[0].weight.detach().numpy()
        )


def test_training_through_a_compiled_module_matches_eager():
    x = mt.randn(6, 3, generator=mt.Generator().manual_seed(2), dtype=mt.float64)
    results = []
    for wrap in (lambda m: m, lambda m: mt.compile(m, backend="eager")):
        model = wrap(_mlp(3))
        opt = mt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        for _ in range(3):
            opt.zero_grad()
            model(x).square().mean().backward()
            opt.step()
        results.append([p.detach().numpy().copy() for p in model.parameters()])
    for a, b in zip(*results, strict=True):
        np.testing.assert_array_equal(a, b)


def test_dynamo_optimize_wraps_modules():
    m = _mlp()
    assert type(mt._dynamo.optimize("eager")(m)) is OptimizedModule
    assert mt._dynamo.optimize("eager", disable=True)(m) is m
    msg = "A callable function is expected, but <class 'int'> is provided."
    assert _message(AssertionError, lambda: mt._dynamo.optimize("eager")(3)) == msg


# --- jit.trace runs the example ---


def test_trace_runs_the_example_once():
    calls = []

    def f(a, b=None):
        calls.append(a.shape)
        return a * 2

    x = mt.ones(2, 3)
    assert mt.jit.trace(f, x) is f and calls == [(2, 3)]
    mt.jit.trace(f, [x, x], check_trace=False)
    mt.jit.trace(f, example_kwarg_inputs={"a": mt.ones(1), "b": x})
    assert calls == [(2, 3), (2, 3), (1,)]
    lin = mt.nn.Linear(3, 2)
    msg = _message(RuntimeError, lambda: mt.jit.trace(lin, mt.ones(4, 5)))
    assert msg == "mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)"
    assert _message(TypeError, lambda: mt.jit.trace(f, 3)) == "'int' object is not iterable"


def test_trace_refuses_outputs_the_tracer_cannot_record():
    x = mt.ones(2)
    none_msg = (
        "The traced function didn't return any values! Side-effects are not captured in traces, "
        "so it would be a no-op."
    )
    assert _message(RuntimeError, lambda: mt.jit.trace(lambda a: None, x)) == none_msg
    only = (
        "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from "
        "traced functions"
    )
    assert _message(RuntimeError, lambda: mt.jit.trace(lambda a: (a, 1), x)) == only
    assert _message(RuntimeError, lambda: mt.jit.trace(lambda a: a.tolist(), x)) == only
    msg = _message(RuntimeError, lambda: mt.jit.trace(lambda a: {"a": a}, x))
    assert msg.startswith("Encountering a dict at the output of the tracer might cause")
    assert msg.endswith("pass strict=False to trace() to allow this behavior.")
    mt.jit.trace(lambda a: {"a": [a, (a,)]}, x, strict=False)
    lin = mt.nn.Linear(2, 2)
    msg = _message(AttributeError, lambda: mt.jit.trace(lin.extra_repr, x))
    assert msg == (
        "trace doesn't support compiling individual module's functions.\nPlease use trace_module"
    )
    assert mt.jit.trace(lin.forward, x) == lin.forward


# --- compile's argument checks in torch's order ---


def test_compile_checks_mode_and_options_only_for_inductor():
    m = mt.nn.Linear(1, 1)
    modes = "default, lite, reduce-overhead, max-autotune-no-cudagraphs, max-autotune"
    msg = _message(RuntimeError, lambda: mt.compile(m, mode="fastest", dynamic="yes"))
    assert msg == f"Unrecognized mode=fastest, should be one of: {modes}"
    msg = _message(AttributeError, lambda: mt.compile(m, options=[("a", 1)]))
    assert msg == "'list' object has no attribute 'items'"
    # another backend gets mode and options as keywords when it compiles: not checked here
    assert type(mt.compile(m, backend="eager", mode="fastest")) is OptimizedModule
    assert type(mt.compile(m, backend="eager", options=3)) is OptimizedModule
    assert type(mt.compile(m, options=[])) is OptimizedModule
    msg = _message(RuntimeError, lambda: mt.compile(m, backend="nope", dynamic="yes"))
    assert msg.startswith("Invalid backend: 'nope'")


def test_compile_checks_dynamic_not_fullgraph():
    m = mt.nn.Linear(1, 1)
    for value, name in ((1, "int"), ("yes", "str")):
        msg = _message(AssertionError, lambda v=value: mt.compile(m, backend="eager", dynamic=v))
        assert msg == f"Expected enable to be a bool, got <class '{name}'>"
    msg = _message(AssertionError, lambda: mt._dynamo.optimize("eager", dynamic=0.5))
    assert msg == "Expected enable to be a bool, got <class 'float'>"
    assert type(mt.compile(m, fullgraph="yes")) is OptimizedModule


def test_compile_decorator_checks_when_applied():
    m = mt.nn.Linear(1, 1)
    decorate = mt.compile(mode="fastest")  # no error yet, as torch
    assert _message(RuntimeError, lambda: decorate(m)).startswith("Unrecognized mode=fastest")
    msg = _message(RuntimeError, lambda: mt.compile(backend="eager")(None))
    assert msg == "Model can't be None"
    assert mt.compile(m, backend="eager", dynamic=1, disable=True) is m
    msg = _message(AssertionError, lambda: mt.compile(3, backend="eager", dynamic=1))
    assert msg == "Expected enable to be a bool, got <class 'int'>"
